// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include "args.hpp"

#include <chrono>
#include <cstdio>
#include <fmt/format.h>

namespace hipfile::tools {

void Progress::start(std::string label, std::uint64_t total) {
  finish();
  if (!enabled_) return;
  label_ = std::move(label);
  total_ = total;
  done_ = 0;
  stop_ = false;
  thread_ = std::thread([this] { loop(); });
}

void Progress::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

void Progress::loop() {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  std::unique_lock lock(mutex_);
  // The first line waits half a second, so short passes never print.
  while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    std::uint64_t done = done_.load(std::memory_order_relaxed);
    double pct = total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
    fmt::print(stderr, "\r\033[K{}: {} / {} ({:.0f}%)  {:.2f} GB/s", label_, format_size(done), format_size(total_),
               pct, gbps(done, s));
    std::fflush(stderr);
  }
}

}  // namespace hipfile::tools
