// SPDX-License-Identifier: MIT
// Profiler ranges, one per request (hipFileParamProfileNvtx / HIPFILE_PROFILE_NVTX, off by
// default): NVTX on platform=nvidia (NVTX3 is header-only and ships with CUDA), roctx on amd
// where its header was found at configure (libroctx64 is loaded at the first range, so the
// library needs no roctracer to load). Off, a range costs one relaxed load and a branch
// (bench/profile_ranges.cpp, HISTORY.md "profiler ranges").
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hipfile::engine::profile {

/// Set at each driver open from the configuration in force.
void set_enabled(bool on) noexcept;
/// Whether this build can emit ranges at all ("nvtx", "roctx" or "none").
const char* backend() noexcept;
/// Ranges begun since the process started (counted only while enabled; tests read it).
std::uint64_t ranges_begun() noexcept;

namespace detail {
inline std::atomic<bool> enabled{false};
void begin(const char* op, std::size_t size, off_t offset) noexcept;
void end() noexcept;
}  // namespace detail

/// A range around one request on the calling thread: "hipFileRead 1048576 B at 0".
class Range {
 public:
  Range(const char* op, std::size_t size, off_t offset) noexcept {
    if (detail::enabled.load(std::memory_order_relaxed)) {
      active_ = true;
      detail::begin(op, size, offset);
    }
  }
  ~Range() {
    if (active_) detail::end();
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  bool active_ = false;
};

}  // namespace hipfile::engine::profile
