// SPDX-License-Identifier: MIT
#include "runtime/async_state.hpp"

#include <chrono>
#include <climits>

#include "gpu/hip.hpp"
#include "sys/log.hpp"

namespace hipfile::engine {

hipError_t FlagPool::acquire(FlagSlot& out) {
  std::unique_lock lock(mu_);
  open_cv_.wait(lock, [&] { return !quiet_; });
  for (;;) {
    if (free_.empty())
      if (hipError_t e = grow(); e != hipSuccess) return e;
    const std::uint32_t i = free_.back();
    free_.pop_back();
    Word& w = words_[i];
    if (w.value == UINT32_MAX) continue;  // retired: its next target would wrap to 0
    out.host = w.host;
    out.device = w.device;
    out.index = i;
    out.target = ++w.value;
    ++armed_;
    return hipSuccess;
  }
}

void FlagPool::signal_and_release(const FlagSlot& s) noexcept {
  std::atomic_ref<std::uint32_t>(*s.host).store(s.target, std::memory_order_release);
  std::lock_guard lock(mu_);
  free_.push_back(s.index);  // capacity reserved in grow(): no allocation here
  if (--armed_ == 0) drained_cv_.notify_all();
}

void FlagPool::quiesce(const std::function<void()>& fn) {
  std::unique_lock lock(mu_);
  open_cv_.wait(lock, [&] { return !quiet_; });  // one at a time
  quiet_ = true;
  while (!drained_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return armed_ == 0; }))
    HIPFILE_LOG(Warn, "freeing staging memory waits for %zu async operations still in flight (their "
                "streams have not reached them)", armed_);
  lock.unlock();
  struct Reopen {
    FlagPool* pool;
    ~Reopen() {
      std::lock_guard again(pool->mu_);
      pool->quiet_ = false;
      pool->open_cv_.notify_all();
    }
  } reopen{this};
  fn();
}

void FlagPool::advance_free_words(std::uint32_t value) {
  std::lock_guard lock(mu_);
  for (std::uint32_t i : free_) {
    words_[i].value = value;
    std::atomic_ref<std::uint32_t>(*words_[i].host).store(value, std::memory_order_release);
  }
}

// Called with mu_ held. Blocks are never freed: a stream may still read them.
hipError_t FlagPool::grow() {
  words_.reserve(words_.size() + kBlockWords);
  free_.reserve(words_.size() + kBlockWords);
  void* host = nullptr;
  void* device = nullptr;
  if (hipError_t e = gpu::alloc_host_mapped(kBlockWords * sizeof(std::uint32_t), host, device); e != hipSuccess)
    return e;
  auto* h = static_cast<std::uint32_t*>(host);
  auto* d = static_cast<std::uint32_t*>(device);
  for (std::size_t k = 0; k < kBlockWords; ++k) {
    std::atomic_ref<std::uint32_t>(h[k]).store(0, std::memory_order_relaxed);
    free_.push_back(static_cast<std::uint32_t>(words_.size()));
    words_.push_back(Word{h + k, d + k, 0});
  }
  return hipSuccess;
}

FlagPool& flags() {
  static FlagPool* p = new FlagPool;
  return *p;
}

StreamTable& streams() {
  static StreamTable* t = new StreamTable;
  return *t;
}

void without_async_waits(const std::function<void()>& fn) { flags().quiesce(fn); }

// The order a submission takes them in: a stream's stripe, then the pool's lock.
void async_prepare_fork() noexcept {
  StreamTable& t = streams();
  for (std::mutex& m : t.stripes) m.lock();
  t.mu.lock();
  flags().lock_for_fork();
}

void async_after_fork(bool in_child) noexcept {
  StreamTable& t = streams();
  flags().unlock_after_fork(in_child);
  t.mu.unlock();
  for (std::mutex& m : t.stripes) m.unlock();
}

void advance_flag_words_for_test(std::uint32_t value) { flags().advance_free_words(value); }

}  // namespace hipfile::engine
