// SPDX-License-Identifier: MIT
// The runtime's statistics snapshot (runtime/stats.hpp) in the C structs of
// include/hipfile/hipfile_stats.h, for the calls that return them and for hipFile 0.5's view.
#pragma once

#include <hipfile/hipfile_stats.h>

#include "runtime/stats.hpp"

namespace hipfile::api {

void to_c(const engine::stats::Snapshot& in, hipFileStatsL3_t& out) noexcept;
/// One snapshot in C; all zero when there is no memory for it.
void snapshot_l3(hipFileStatsL3_t& out) noexcept;
/// The same with the raw counters hipFile 0.5's view is derived from (stats_v05.cpp); false,
/// with `out` zeroed, when there is no memory for it.
bool snapshot_l3(hipFileStatsL3_t& out, engine::stats::Raw& raw) noexcept;

}  // namespace hipfile::api
