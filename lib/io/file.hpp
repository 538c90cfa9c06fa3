// SPDX-License-Identifier: MIT
// A registered file as every backend sees it: the client's fd number, the library's own
// buffered and O_DIRECT descriptors for it, and its direct-I/O alignment.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "io/inflight.hpp"

namespace hipfile::engine {

struct File {
  int client_fd = -1;
  int buffered_fd = -1;   // our own reopen: positional I/O never sees the client's O_APPEND
  int direct_fd = -1;     // O_DIRECT reopen, -1 where the file system refuses O_DIRECT
  bool client_direct = false;         // the client's fd has O_DIRECT
  bool use_direct = false;            // O_DIRECT for aligned ranges (client's wish or forced)
  std::atomic<bool> direct_ok{true};  // cleared when the file system rejects a direct I/O
  std::atomic<bool> mapped_failed{false};  // set when the runtime cannot pin this file's pages
  std::uint32_t dio_align = 4096;     // file offset and length alignment for O_DIRECT
  std::uint32_t mem_align = 4096;     // memory alignment for O_DIRECT
  dev_t dev = 0;
  ino_t ino = 0;
  int access = 0;                     // O_ACCMODE bits of the client fd
  // buffered_fd is a duplicate of the client's fd (the reopen was refused) that has O_APPEND:
  // a pwrite through it would append wherever it was asked to write, so writes are refused.
  bool append_only = false;
  // Fastpath per-file registration (lib/fastpath): set once before the file is visible to I/O,
  // null = engine-only. Released (e.g. cuFileHandleDeregister) before the descriptors close.
  std::shared_ptr<void> fastpath_state;
  InFlight inflight;

  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();
};

}  // namespace hipfile::engine
