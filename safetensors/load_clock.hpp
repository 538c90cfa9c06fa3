// SPDX-License-Identifier: MIT
/**
 * @file load_clock.hpp
 * @brief Internal: the laps of one load (load(), fill(), a stream) on the steady clock, and
 *        the library's phases since it began. Not part of the API.
 */
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include <hipfile++/stats.hpp>

namespace hipfile::safetensors::detail {

class LoadClock {
 public:
  LoadClock()
      : began_(clock::now()),
        lap_(began_),
        phases_(hipfile::stats::phases().value_or(hipfile::stats::Phases{})),
        paths_(path_bytes_now()) {}
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

  /// Bytes read on each of the library's paths since the start (0 where statistics are off or
  /// were reset during the load).
  std::array<std::uint64_t, 4> library_path_bytes() const {
    auto now = path_bytes_now();
    for (std::size_t p = 0; p < now.size(); ++p) now[p] = now[p] >= paths_[p] ? now[p] - paths_[p] : 0;
    return now;
  }

 private:
  static std::array<std::uint64_t, 4> path_bytes_now() {
    std::array<std::uint64_t, 4> out{};
    auto s = hipfile::stats::level1();
    if (!s) return out;
    for (std::size_t p = 0; p < out.size(); ++p)
      out[p] = hipfile::stats::at(*s, static_cast<hipfile::stats::Path>(p), hipfile::stats::Op::read).bytes;
    return out;
  }

  using clock = std::chrono::steady_clock;
  clock::time_point began_, lap_;
  hipfile::stats::Phases phases_;
  std::array<std::uint64_t, 4> paths_;
};

}  // namespace hipfile::safetensors::detail
