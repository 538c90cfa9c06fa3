// SPDX-License-Identifier: MIT
// hipfile-io's own data files when no --file is given: a fresh directory under $TMPDIR (or
// /tmp), removed with what it holds when the run ends, after an error, or on SIGINT, SIGTERM
// or SIGHUP, so a run with no arguments leaves nothing behind.
#pragma once

#include <string>
#include <vector>

namespace hipfile::tools::io {

class ScratchDir {
 public:
  /// Creates the directory; throws Failure naming it when that fails.
  ScratchDir();
  /// Removes `paths()` and the directory.
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& dir() const { return dir_; }
  /// Names the files the run will create in the directory (all of them, before the first is
  /// created): the signal handler removes these, as it cannot list a directory safely.
  void will_hold(std::vector<std::string> paths);

 private:
  std::string dir_;
};

}  // namespace hipfile::tools::io
