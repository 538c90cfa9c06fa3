// SPDX-License-Identifier: MIT
// The parts measurement of a --resident run: the same hipfile calls on each request's cached
// head alone, then on its uncached rest alone. A partly cached read should take no longer than
// its two parts do one after the other (the target: at most 1.1x their sum).
#pragma once

#include "hipfile_bench.hpp"

#include <functional>
#include <optional>

namespace hipfile::tools::io {

class PartsBench {
 public:
  /// Opens the data file twice more (a hipFile handle per part) and allocates each part's buffers.
  /// The run has one shared file (--resident is refused with --file-per-device).
  PartsBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress);
  PartsBench(const PartsBench&) = delete;
  PartsBench& operator=(const PartsBench&) = delete;

  struct Pass {
    double seconds = 0;      // the heads' pass plus the rests' pass
    double cpu_seconds = 0;  // of those two passes only, not of the preparation between them
  };
  /// Call with the file in the --resident state: times the heads (cached), runs `prepare` to put
  /// the file back into that state, then times the rests (uncached).
  Pass run(const std::function<void()>& prepare);

 private:
  std::vector<Worker> heads_, rests_;
  std::vector<DataFile> heads_file_, rests_file_;  // before the benches, which deregister them first
  std::optional<HipfileBench> heads_bench_, rests_bench_;
};

}  // namespace hipfile::tools::io
