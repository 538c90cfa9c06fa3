// SPDX-License-Identifier: MIT
// The decisive check: a real write, read back and compare through the library in the
// directory under test, for each memory kind and open mode.
#pragma once

#include "memory.hpp"

#include <string>

namespace hipfile::tools::check {

struct ProbeResult {
  std::string name;    // "device memory, O_DIRECT"
  bool ran = false;    // false: skipped (detail says why)
  bool ok = false;
  std::string detail;
  double seconds = 0;
};

/// Writes `size` bytes of the pattern from `kind` memory on GPU `device` into a new file in
/// `dir` with hipFileWrite, reads them back with hipFileRead into a cleared buffer, compares,
/// and removes the file. Never throws.
ProbeResult probe_io(const std::string& dir, MemKind kind, bool direct, int device, std::size_t size);

}  // namespace hipfile::tools::check
