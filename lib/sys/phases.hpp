// SPDX-License-Identifier: MIT
// Where the library's one-time and setup work goes: a count and the time of each phase
// (driver open, engine start, worker threads, pinned staging, read-path trials, mapping,
// registrations, teardown), kept always, so that any user can see what a first load paid that a
// later one does not (hipFileGetStatsPhases, doc/statistics.md). Times are per call, summed over
// threads: phases on the workers (pinned staging, mapping) can overlap each other and the reads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace hipfile::sys {

/// The phases, numbered as hipFileStatsPhase_t (lib/api checks it).
enum class Phase : int {
  DriverOpen,
  FastpathOpen,
  EngineStart,
  ThreadStart,
  PinnedStaging,
  PathTrials,
  Mapping,
  FileRegistration,
  BufferRegistration,
  Teardown,
};
inline constexpr std::size_t kPhases = 10;

struct PhaseTime {
  std::uint64_t count = 0;
  std::uint64_t time_ns = 0;
  std::uint64_t first_ns = 0;  // the first call's time: the one a first load waits for
};

/// Adds one call of @p ns nanoseconds to @p phase.
void add_phase(Phase phase, std::uint64_t ns) noexcept;
/// A copy of every phase's totals, in Phase order.
void phase_times(PhaseTime (&out)[kPhases]) noexcept;
/// Zeroes every phase (hipFileStatsReset).
void reset_phases() noexcept;
/// "driver_open", "engine_start", ...; "unknown" for a value outside Phase.
const char* phase_name(Phase phase) noexcept;

/// The steady clock, in nanoseconds, for phases timed in parts.
inline std::uint64_t phase_clock_ns() noexcept {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

/// Times its scope as one call of a phase.
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase phase) noexcept : phase_(phase), start_(phase_clock_ns()) {}
  ~PhaseTimer() { add_phase(phase_, phase_clock_ns() - start_); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  Phase phase_;
  std::uint64_t start_;
};

}  // namespace hipfile::sys
