// SPDX-License-Identifier: MIT
// Running one measured pass: one thread per worker, all released together from a barrier, the
// clock started at the release and stopped per GPU when that GPU's last thread finishes.
#pragma once

#include "plan.hpp"

#include <functional>
#include <vector>

namespace hipfile::tools::io {

struct PassTiming {
  double seconds = 0;                 // release → last thread done
  std::vector<double> slot_seconds;   // release → last thread of that GPU done
};

/// Calls body(w) for every worker on its own thread, current device set to the worker's GPU.
/// The first Failure thrown by any body is rethrown here after all threads have finished.
PassTiming run_parallel(const std::vector<Worker>& workers, std::size_t slots,
                        const std::function<void(std::size_t)>& body);

}  // namespace hipfile::tools::io
