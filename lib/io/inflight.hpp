// SPDX-License-Identifier: MIT
// Counts operations using a registered object so that deregistration can wait for them:
// deregistering while I/O is in flight is safe, and later I/O finds the object gone.
#pragma once

#include <atomic>
#include <memory>

namespace hipfile::engine {

/// Every request enters and leaves at least one of these, so both are a single atomic step
/// (a mutex and a condition variable here cost more than the rest of a 4 KiB read's
/// bookkeeping; bench/HISTORY.md, "Session of 2026-12-02, night"). Deregistration, which is rare, waits.
/// Entries happen under the owning table's shared lock while the object is in the table; the
/// remover takes it out under the exclusive lock first, so once wait_idle starts the count can
/// only fall.
class InFlight {
 public:
  void enter() noexcept { count_.fetch_add(1, std::memory_order_relaxed); }
  void leave() noexcept {
    // Release: the I/O's effects are visible to the deregistration that sees the count fall.
    if (count_.fetch_sub(1, std::memory_order_release) == 1) count_.notify_all();
  }
  void wait_idle() const noexcept {
    for (long now = count_.load(std::memory_order_acquire); now != 0; now = count_.load(std::memory_order_acquire))
      count_.wait(now, std::memory_order_acquire);
  }

 private:
  std::atomic<long> count_{0};
};

/// A counted reference to a registered object; the registration cannot finish going away
/// while a lease is alive.
template <class T>
class Lease {
 public:
  Lease() noexcept = default;
  explicit Lease(std::shared_ptr<T> p) noexcept : p_(std::move(p)) {
    if (p_) p_->inflight.enter();
  }
  Lease(Lease&& o) noexcept : p_(std::move(o.p_)) {}
  Lease& operator=(Lease&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = std::move(o.p_);
    }
    return *this;
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() { reset(); }
  void reset() noexcept {
    if (p_) p_->inflight.leave();
    p_.reset();
  }
  T* operator->() const noexcept { return p_.get(); }
  T& operator*() const noexcept { return *p_; }
  T* get() const noexcept { return p_.get(); }
  explicit operator bool() const noexcept { return p_ != nullptr; }

 private:
  std::shared_ptr<T> p_;
};

}  // namespace hipfile::engine
