// SPDX-License-Identifier: MIT
// Reading a HIPFILE_TRACE_FILE back in tests: its header line and its request and copy lines,
// each as the numbers after the line's kind.
#pragma once

#include <string>
#include <vector>

namespace hipfile::test {

struct Trace {
  std::vector<std::vector<long long>> requests;  // id, offset, size, participants, begin, end
  std::vector<std::vector<long long>> copies;    // request, thread, offset, bytes, claimed, ...
  std::string header;
};

/// The trace written at `path` (which must exist).
Trace read_trace(const std::string& path);

}  // namespace hipfile::test
