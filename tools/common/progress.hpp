// SPDX-License-Identifier: MIT
// The progress line of long runs: one stderr line, rewritten in place with '\r', shown only on
// a terminal (or when forced), so logs and pipes stay clean.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace hipfile::tools {

class Progress {
 public:
  /// enabled: usually `force || isatty(2)`.
  explicit Progress(bool enabled) : enabled_(enabled) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Starts reporting `label` with `total` bytes expected; a worker calls add() as bytes move.
  void start(std::string label, std::uint64_t total);
  void add(std::uint64_t bytes) noexcept { done_.fetch_add(bytes, std::memory_order_relaxed); }
  /// Stops the line and erases it.
  void finish();
  bool enabled() const noexcept { return enabled_; }

 private:
  void loop();

  bool enabled_;
  std::string label_;
  std::uint64_t total_ = 0;
  std::atomic<std::uint64_t> done_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace hipfile::tools
