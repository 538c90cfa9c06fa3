// SPDX-License-Identifier: MIT
// hipFile 0.5's statistics (hipFileStatsLevel3_t, include/hipfile/hipfile.h): a C struct the API
// fills from one snapshot of the runtime's counters (runtime/stats.hpp).
#pragma once

#include <hipfile/hipfile.h>

namespace hipfile::api {

/// False when the snapshot could not be allocated (out is then zeroed).
bool snapshot_v05(hipFileStatsLevel3_t& out) noexcept;

}  // namespace hipfile::api
