// SPDX-License-Identifier: MIT
#include "staging/lanes.hpp"

#include <chrono>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <thread>
#include <vector>

#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

std::unique_ptr<Lane> Lane::create(int device, unsigned depth, std::size_t slot_bytes, Status& st, WaitMode wait,
                                   bool follows_null_stream) {
  sys::PhaseTimer timed(sys::Phase::PinnedStaging);
  gpu::DeviceGuard guard(device);
  if (guard.status() != hipSuccess) {
    st = Status::of_hip(guard.status());
    return nullptr;
  }
  std::unique_ptr<Lane> lane(new Lane);
  lane->device_ = device;
  lane->slot_bytes_ = slot_bytes;
  lane->wait_ = wait;
  if (hipError_t e = lane->make(depth, follows_null_stream); e != hipSuccess) {
    st = Status::of_hip(e);
    return nullptr;  // ~Lane frees what was made
  }
  return lane;
}

hipError_t Lane::make(unsigned depth, bool follows_null_stream) {
  // Non-blocking unless asked: the lane's copies must not serialise with the application's
  // default stream (an async request waiting on a NULL-stream kernel that waits on it would hang).
  if (hipError_t e = gpu::create_stream(stream_, follows_null_stream); e != hipSuccess) {
    stream_ = nullptr;
    return e;
  }
  if (wait_ != WaitMode::spin) {  // drain() then waits on an event, not in hipStreamSynchronize
    if (hipError_t e = gpu::create_event(drained_, wait_ == WaitMode::block); e != hipSuccess) {
      drained_ = nullptr;
      return e;
    }
  }
  slots_.resize(depth);
  for (Slot& s : slots_)
    if (hipError_t e = make_slot(s); e != hipSuccess) return e;
  return hipSuccess;
}

hipError_t Lane::make_slot(Slot& s) noexcept {
  void* host = nullptr;
  if (hipError_t e = gpu::alloc_pinned(host, slot_bytes_); e != hipSuccess) return e;
  s.host = static_cast<std::byte*>(host);
  if (hipError_t e = gpu::create_event(s.done, wait_ == WaitMode::block); e != hipSuccess) {
    s.done = nullptr;
    return e;
  }
  return hipSuccess;
}

Lane::~Lane() {
  gpu::DeviceGuard guard(device_);
  if (stream_) (void)gpu::sync_stream(stream_);
  trace_.reset();
  for (Slot& s : slots_) {
    if (s.done) (void)gpu::destroy_event(s.done);
    if (s.host) (void)gpu::free_pinned(s.host, slot_bytes_);
  }
  if (drained_) (void)gpu::destroy_event(drained_);
  if (stream_) (void)gpu::destroy_stream(stream_);
}

trace::LaneLog* Lane::trace_log() noexcept {
  if (!trace_) {
    try {
      trace_ = std::make_unique<trace::LaneLog>(stream_);
    } catch (...) {
      return nullptr;  // no memory: the copy runs untraced
    }
  }
  return trace_.get();
}

hipError_t Lane::wait_for(hipEvent_t event, bool last) const noexcept {
  // The last wait of a request ends it: a long sleep there is the caller's, at the end of every
  // call (bench/HISTORY.md, "The per-call bubble"); the waits for slots overlap other copies.
  constexpr unsigned kSlotSleepUs = 128, kLastSleepUs = 16;
  if (wait_ != WaitMode::poll) return gpu::wait_event(event);
  return gpu::poll_event(event, last ? kLastSleepUs : kSlotSleepUs);
}

hipError_t Lane::free_slot(Slot& s) noexcept {
  if (poisoned_) return hipErrorUnknown;  // nothing of a poisoned lane is reused
  hipError_t e = hipSuccess;
  if (s.busy) {
    e = wait_for(s.done);
    // A failed wait is not a finished copy: make sure, or keep the slot (and its pages) forever.
    if (e != hipSuccess && !confirm_idle()) return e;
  }
  s.busy = false;
  if (s.pinned_pages) {
    // Only after its copy finished: the copy engine reads those pages until then.
    hipError_t u = gpu::unregister_host(s.pinned_pages);
    if (e == hipSuccess) e = u;
    s.pinned_pages = nullptr;
  }
  return e;
}

hipError_t Lane::drain() noexcept {
  if (poisoned_) return hipErrorUnknown;
  hipError_t e = hipSuccess;
  if (drained_) {
    e = gpu::record_event(drained_, stream_);
    if (e == hipSuccess) e = wait_for(drained_, true);
  } else {
    e = gpu::sync_stream(stream_);
  }
  // A failed synchronize does not mean the stream is idle: copies may still read the slots or
  // pinned page-cache pages. They are released only once the runtime says the stream is idle.
  if (e != hipSuccess) {
    gpu::clear_last_error();
    if (!confirm_idle()) return e;
  }
  for (Slot& s : slots_) {
    s.busy = false;  // the stream is idle: no event to wait for
    if (hipError_t u = free_slot(s); e == hipSuccess) e = u;
  }
  return e;
}

bool Lane::confirm_idle() noexcept {
  gpu::DeviceGuard guard(device_);
  for (;;) {
    const hipError_t q = gpu::query_stream(stream_);
    if (q == hipSuccess) return true;
    if (q != hipErrorNotReady) {
      gpu::clear_last_error();
      poisoned_ = true;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

namespace {

// Poisoned lanes are kept for the life of the process, since the device may still write their
// memory. They are held here rather than dropped so that they stay reachable: a leak checker
// (LeakSanitizer in the sanitizer runs) then reports only real leaks. Never destroyed, not even at
// exit, for the same reason.
void keep_forever(Lane* lane) noexcept {
  static auto* mu = new std::mutex;
  static auto* kept = new std::vector<Lane*>;
  std::lock_guard lock(*mu);
  try {
    kept->push_back(lane);
  } catch (...) {
    // No memory for the record: the lane is still kept, only unrecorded.
  }
}

}  // namespace

void release_lane(std::unique_ptr<Lane> lane) noexcept {
  if (lane && lane->poisoned()) {
    keep_forever(lane.release());
    return;
  }
  lane.reset();
}

std::unique_ptr<Lane> LanePool::acquire(int device, Status& st) {
  {
    std::unique_lock lock(mu_);
    for (;;) {
      // Newest first: the lane this thread returned last is the likeliest still in cache.
      for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
        if ((*it)->device() == device) {
          std::unique_ptr<Lane> lane = std::move(*it);
          free_.erase(std::next(it).base());
          return lane;
        }
      }
      if (lanes_[device] < max_lanes_) break;
      ++waiting_;
      returned_.wait(lock);
      --waiting_;
    }
    ++lanes_[device];  // counted before it exists, so that racing callers stay under the cap
  }
  // A lane that does not come to exist (an error, or bad_alloc thrown by its creation) is
  // uncounted again: else each such failure would shrink the cap for good, and once it reached
  // zero every caller would wait for a lane that can never be returned.
  struct Uncount {
    LanePool* pool;
    int device;
    ~Uncount() {
      if (pool == nullptr) return;
      std::lock_guard lock(pool->mu_);
      --pool->lanes_[device];
      if (pool->waiting_ > 0) pool->returned_.notify_all();
    }
  } uncount{this, device};
  std::unique_ptr<Lane> lane = Lane::create(device, depth_, slot_bytes_, st, WaitMode::spin, follows_null_stream_);
  if (lane) uncount.pool = nullptr;
  return lane;
}

void LanePool::release(std::unique_ptr<Lane> lane) {
  if (!lane) return;
  std::lock_guard lock(mu_);
  if (lane->poisoned()) {
    // Never reused (its memory may still be in use) and no longer counted: a new lane may take
    // its place, so one failure cannot leave callers waiting for ever.
    --lanes_[lane->device()];
    release_lane(std::move(lane));
  } else {
    free_.push_back(std::move(lane));
  }
  if (waiting_ > 0) returned_.notify_all();
}

void LanePool::clear() {
  std::vector<std::unique_ptr<Lane>> all;
  {
    std::lock_guard lock(mu_);
    all.swap(free_);
    for (const auto& lane : all) --lanes_[lane->device()];
  }
}

}  // namespace hipfile::engine
