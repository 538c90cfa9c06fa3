// SPDX-License-Identifier: MIT
// The fastpath report: what the last driver open decided about GPU-direct I/O and why, kept
// process-wide so that tests and hipfile-check (through hipFileDriverGetFastpathReport) can show
// the library's own decision instead of re-deriving it. doc/fastpaths.md "The fastpath report".
#pragma once

#include <cstddef>
#include <string>

namespace hipfile::fastpath {

struct Report {
  std::string fastpath = "none";  // name of the loaded fastpath ("cufile", "amd-ais", a test's), or "none"
  std::string library;            // the shared library that loaded (resolved path), "" when none did
  bool gds = false;               // GPU-direct storage was reported (cuFile: nvidia-fs, nvfs version, P2P)
  std::string reason;             // one sentence: why this fastpath, or why none

  /// One line: "fastpath=NAME library=PATH|none gds=yes|no reason=SENTENCE", at most
  /// kMaxText - 1 characters (longer text is cut and ends in "...").
  std::string text() const;
  static constexpr std::size_t kMaxText = 4096;
};

/// Replaces the report (at every driver open). Thread-safe.
void publish(Report report);

/// The report of the most recent driver open; false (and `out` untouched) when the driver has
/// never been opened in this process. Thread-safe.
bool last_report(Report& out);

}  // namespace hipfile::fastpath
