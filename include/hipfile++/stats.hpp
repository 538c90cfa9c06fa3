// SPDX-License-Identifier: MIT
/**
 * @file stats.hpp
 * @brief hipfile::stats: libhipfile's I/O statistics (include/hipfile/hipfile_stats.h).
 *
 * Levels: 0 off, 1 counters per path and operation (default), 2 + size and latency histograms,
 * 3 + per-device counters. None of these functions opens the driver.
 */
#pragma once

#include <hipfile/hipfile_stats.h>

#include <array>
#include <cstddef>
#include <memory>

#include "error.hpp"

namespace hipfile::stats {

using Counters = hipFileStatsCounters_t;
using Level1 = hipFileStatsL1_t;
using Level2 = hipFileStatsL2_t;
using Level3 = hipFileStatsL3_t;

enum class Path : int {
  engine = hipFileStatsPathEngine,
  host = hipFileStatsPathHost,
  cufile = hipFileStatsPathCufile,
  amd = hipFileStatsPathAmd,
};
enum class Op : int { read = hipFileStatsOpRead, write = hipFileStatsOpWrite };

/// The level-1 counters (small, by value).
[[nodiscard]] inline Result<Level1> level1() noexcept {
  Level1 s{};
  if (auto r = check(hipFileGetStatsExL1(&s, sizeof s)); !r) return unexpected(r.error());
  return s;
}

/// Everything, histograms and per-device counters included (about 13 KiB, so on the heap).
/// Allocation failure is reported as hipFileInternalError rather than thrown.
[[nodiscard]] inline Result<std::unique_ptr<Level3>> level3() noexcept {
  std::unique_ptr<Level3> s(new (std::nothrow) Level3{});
  if (!s) return unexpected(Error::from_status({hipFileInternalError, hipSuccess}));
  if (auto r = check(hipFileGetStatsExL3(s.get(), sizeof *s)); !r) return unexpected(r.error());
  return s;
}

/// The counters of one path and operation from a level-1 snapshot.
[[nodiscard]] constexpr const Counters& at(const Level1& s, Path p, Op o) noexcept {
  return s.path[static_cast<int>(p)][static_cast<int>(o)];
}

[[nodiscard]] inline Result<void> reset() noexcept { return check(hipFileStatsReset()); }

[[nodiscard]] inline Result<int> level() noexcept {
  int l = 0;
  if (auto r = check(hipFileGetStatsLevel(&l)); !r) return unexpected(r.error());
  return l;
}

[[nodiscard]] inline Result<void> set_level(int level) noexcept { return check(hipFileSetStatsLevel(level)); }

using PhaseTime = hipFileStatsPhaseTime_t;
enum class Phase : int {
  driver_open = hipFileStatsPhaseDriverOpen,
  fastpath_open = hipFileStatsPhaseFastpathOpen,
  engine_start = hipFileStatsPhaseEngineStart,
  thread_start = hipFileStatsPhaseThreadStart,
  pinned_staging = hipFileStatsPhasePinnedStaging,
  path_trials = hipFileStatsPhasePathTrials,
  mapping = hipFileStatsPhaseMapping,
  file_registration = hipFileStatsPhaseFileRegistration,
  buffer_registration = hipFileStatsPhaseBufferRegistration,
  teardown = hipFileStatsPhaseTeardown,
};
inline constexpr std::size_t phase_count = hipFileStatsPhaseCount;
using Phases = std::array<PhaseTime, phase_count>;

/// Where the library's setup and one-time work went (hipFileGetStatsPhases): index by Phase.
[[nodiscard]] inline Result<Phases> phases() noexcept {
  Phases p{};
  if (auto r = check(hipFileGetStatsPhases(p.data(), p.size())); !r) return unexpected(r.error());
  return p;
}

/// "driver_open", ... as the reports print it.
[[nodiscard]] inline const char* name(Phase p) noexcept { return hipFileGetStatsPhaseName(static_cast<int>(p)); }

/// Writes the text report to `path` (nullptr: HIPFILE_STATS_FILE), mode 0600.
[[nodiscard]] inline Result<void> write(const char* path = nullptr) noexcept {
  return check(hipFileStatsWrite(path));
}

}  // namespace hipfile::stats
