// SPDX-License-Identifier: MIT
/**
 * @file load_clock.hpp
 * @brief Internal: the laps of one load (load(), fill(), a stream) on the steady clock, and
 *        the library's phases since it began. Not part of the API.
 */
#pragma once

#include <chrono>

#include <hipfile++/stats.hpp>

namespace hipfile::safetensors::detail {

class LoadClock {
 public:
  LoadClock() : began_(clock::now()), lap_(began_), phases_(hipfile::stats::phases().value_or(hipfile::stats::Phases{})) {}
  /// Seconds since the last lap (or the start).
  double lap() {
    const auto now = clock::now();
    const double s = std::chrono::duration<double>(now - lap_).count();
    lap_ = now;
    return s;
  }
  /// Seconds from the start to the last lap.
  double total() const { return std::chrono::duration<double>(lap_ - began_).count(); }
  /// Seconds from the start to now.
  double elapsed() const { return std::chrono::duration<double>(clock::now() - began_).count(); }
  /// The library's phase times since the start.
  hipfile::stats::Phases library_phases() const {
    hipfile::stats::Phases now = hipfile::stats::phases().value_or(phases_);
    for (std::size_t i = 0; i < now.size(); ++i) {
      if (now[i].count < phases_[i].count) continue;  // the statistics were reset during the load
      now[i].count -= phases_[i].count;
      now[i].time_ns -= phases_[i].time_ns;
      now[i].first_ns = phases_[i].count == 0 ? now[i].first_ns : 0;
    }
    return now;
  }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point began_, lap_;
  hipfile::stats::Phases phases_;
};

}  // namespace hipfile::safetensors::detail
