// SPDX-License-Identifier: MIT
// The way a large read of page-cache-resident data into device memory runs on an engine of few
// workers, chosen from the rates this engine measured. Which way is fastest is the machine's:
// how fast the GPU driver pins page-cache pages changed between machines of one model and with
// how the page cache had been filled, and the stagers beside a mapping worker added to it on
// some and stalled it on others (see bench/HISTORY.md, "Session of 2026-12-03"). No fixed choice
// kept 2-4 workers from reading slower than one; measuring each way does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace hipfile::engine {

enum class ReadPath : unsigned char {
  mapped_shared,  // map_workers threads pin and copy page-cache pages, the other workers stage beside them
  mapped_alone,   // the mapping workers only
  staged,         // every worker stages through pinned slots; nothing of the page cache is pinned
};

const char* path_name(ReadPath path) noexcept;

/// Chooses among up to three candidate paths: each once, in the order given (the first is the
/// fixed policy's choice), then the fastest measured. A slower candidate is measured again
/// after 8 of the tuner's choices, then after 16, 32, … up to 256 while it stays slower, since
/// rates drift (the page cache refilled, other work on the machine); a path whose rate falls
/// below another's loses its place at once. Thread-safe.
class PathTuner {
 public:
  static constexpr std::uint64_t kFirstProbeGap = 8;
  static constexpr std::uint64_t kMaxProbeGap = 256;

  /// No candidates (until set_candidates): choose() returns staged, record() ignores all.
  PathTuner() = default;
  PathTuner(const PathTuner&) = delete;
  PathTuner& operator=(const PathTuner&) = delete;

  /// The first 1-3 distinct paths of `paths[0..count)`; before the tuner's first use.
  void set_candidates(const ReadPath* paths, std::size_t count) noexcept;

  /// Whether there is a choice at all (two or more candidates).
  bool tuning() const noexcept { return count_ > 1; }
  /// The path for the next read; `trial` (when given) says whether it is tried rather than the
  /// best known (the fastest measured; before any measurement, the first candidate).
  ReadPath choose(bool* trial = nullptr) noexcept;
  /// A read that ran on `path` moved `bytes` in `ns` nanoseconds (both positive; ignored for a
  /// path that is not a candidate). True when that made another path the fastest.
  bool record(ReadPath path, std::size_t bytes, std::int64_t ns) noexcept;
  /// The rate the tuner holds for `path`, bytes per nanosecond (GB/s); 0 before it is measured.
  double rate(ReadPath path) const noexcept;

 private:
  struct Candidate {
    ReadPath path = ReadPath::staged;
    double rate = 0;              // GB/s: the first measurement, then the mean of it and each next one
    bool measured = false;
    std::uint64_t last_chosen = 0;  // choices_ when it was last chosen or measured
    std::uint64_t gap = kFirstProbeGap;
  };
  Candidate* fastest() noexcept;  // under mu_; nullptr before any is measured
  std::size_t index_of(ReadPath path) const noexcept;  // count_ when not a candidate

  mutable std::mutex mu_;
  std::array<Candidate, 3> candidates_{};
  std::size_t count_ = 0;
  std::uint64_t choices_ = 0;
};

}  // namespace hipfile::engine
