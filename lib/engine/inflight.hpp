// SPDX-License-Identifier: MIT
// Counts operations using a registered object so that deregistration can wait for them:
// deregistering while I/O is in flight is safe, and later I/O finds the object gone.
#pragma once

#include <condition_variable>
#include <mutex>

namespace hipfile::engine {

class InFlight {
 public:
  void enter() noexcept {
    std::lock_guard lock(mu_);
    ++count_;
  }
  void leave() noexcept {
    std::lock_guard lock(mu_);
    if (--count_ == 0) idle_.notify_all();
  }
  void wait_idle() noexcept {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [&] { return count_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable idle_;
  long count_ = 0;
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
