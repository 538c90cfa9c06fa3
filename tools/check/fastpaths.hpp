// SPDX-License-Identifier: MIT
// Which GPU-direct fastpaths this machine could use, and if not, why not.
#pragma once

#include <string>
#include <vector>

namespace hipfile::tools::check {

struct Finding {
  std::string name;
  bool available = false;
  std::string detail;
};

/// Kernel P2PDMA, AMD AIS (hipAmdFileRead in libamdhip64), NVIDIA GDS (libcufile + nvidia-fs).
/// Only the current platform's own fastpath can serve this build; the others are listed as such.
std::vector<Finding> probe_fastpaths(const std::string& platform);

}  // namespace hipfile::tools::check
