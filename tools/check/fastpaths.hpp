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
/// These are this tool's own probes of the machine; library_decision() is what libhipfile chose.
std::vector<Finding> probe_fastpaths(const std::string& platform);

/// What libhipfile itself decided at driver open (hipFileDriverGetFastpathReport), which opens
/// the driver if it is not open; the caller closes it. `available` means a fastpath was loaded;
/// `name` is the fastpath ("none" when none), `detail` the library, GDS and the reason.
Finding library_decision();

}  // namespace hipfile::tools::check
