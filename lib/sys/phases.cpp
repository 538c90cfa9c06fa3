// SPDX-License-Identifier: MIT
#include "sys/phases.hpp"

#include <atomic>

namespace hipfile::sys {

namespace {

struct Totals {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> time_ns{0};
  std::atomic<std::uint64_t> first_ns{0};
};

Totals g_phases[kPhases];

}  // namespace

void add_phase(Phase phase, std::uint64_t ns) noexcept {
  Totals& t = g_phases[static_cast<std::size_t>(phase)];
  if (t.count.fetch_add(1, std::memory_order_relaxed) == 0) t.first_ns.store(ns, std::memory_order_relaxed);
  t.time_ns.fetch_add(ns, std::memory_order_relaxed);
}

void phase_times(PhaseTime (&out)[kPhases]) noexcept {
  for (std::size_t i = 0; i < kPhases; ++i) {
    out[i].count = g_phases[i].count.load(std::memory_order_relaxed);
    out[i].time_ns = g_phases[i].time_ns.load(std::memory_order_relaxed);
    out[i].first_ns = g_phases[i].first_ns.load(std::memory_order_relaxed);
  }
}

void reset_phases() noexcept {
  for (Totals& t : g_phases) {
    t.count.store(0, std::memory_order_relaxed);
    t.time_ns.store(0, std::memory_order_relaxed);
    t.first_ns.store(0, std::memory_order_relaxed);
  }
}

const char* phase_name(Phase phase) noexcept {
  switch (phase) {
    case Phase::DriverOpen: return "driver_open";
    case Phase::FastpathOpen: return "fastpath_open";
    case Phase::EngineStart: return "engine_start";
    case Phase::ThreadStart: return "thread_start";
    case Phase::PinnedStaging: return "pinned_staging";
    case Phase::PathTrials: return "path_trials";
    case Phase::Mapping: return "mapping";
    case Phase::FileRegistration: return "file_registration";
    case Phase::BufferRegistration: return "buffer_registration";
    case Phase::Teardown: return "teardown";
  }
  return "unknown";
}

}  // namespace hipfile::sys
