// SPDX-License-Identifier: MIT
// One request to move data between a file and memory, as every layer that moves data takes it:
// the staging engine, the fastpaths, async and batch. A bottom header, so that a backend takes
// requests without including the engine that calls it; the result, IoResult, is in status.hpp.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace hipfile::engine {

struct File;

enum class Direction { Read, Write };

struct Request {
  Direction dir = Direction::Read;
  File* file = nullptr;
  std::byte* mem = nullptr;  // destination (read) or source (write)
  int device = -1;           // owning device of `mem`; -1 for CPU-accessible memory
  std::size_t size = 0;
  off_t offset = 0;          // file offset
  // Sync API: the copies must follow work already queued on the NULL stream, as hipMemcpy's do.
  bool after_null_stream = false;
};

}  // namespace hipfile::engine
