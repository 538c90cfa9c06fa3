// SPDX-License-Identifier: MIT
// Wall-clock timing for measured passes: steady_clock, never the adjustable system clock.
#pragma once

#include <chrono>

namespace hipfile::tools {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hipfile::tools
