// SPDX-License-Identifier: MIT
#include "engine/staging.hpp"

#include <cstdint>

#include "gpu/hip.hpp"

namespace hipfile::engine {

namespace {
constexpr std::size_t kPage = 4096;
}

std::unique_ptr<Lane> Lane::create(int device, unsigned depth, std::size_t slot_bytes, Status& st, bool blocking,
                                   bool follows_null_stream) {
  gpu::DeviceGuard guard(device);
  if (guard.status() != hipSuccess) {
    st = Status::of_hip(guard.status());
    return nullptr;
  }
  std::unique_ptr<Lane> lane(new Lane);
  lane->device_ = device;
  lane->slot_bytes_ = slot_bytes;
  // Non-blocking unless asked: the lane's copies must not serialise with the application's
  // default stream (an async request waiting on a NULL-stream kernel that waits on it would hang).
  const unsigned stream_flags = follows_null_stream ? hipStreamDefault : hipStreamNonBlocking;
  if (hipError_t e = hipStreamCreateWithFlags(&lane->stream_, stream_flags); e != hipSuccess) {
    lane->stream_ = nullptr;
    st = Status::of_hip(e);
    return nullptr;
  }
  const unsigned event_flags = hipEventDisableTiming | (blocking ? hipEventBlockingSync : 0u);
  if (blocking) {
    if (hipError_t e = hipEventCreateWithFlags(&lane->drained_, event_flags); e != hipSuccess) {
      lane->drained_ = nullptr;
      st = Status::of_hip(e);
      return nullptr;
    }
  }
  lane->slots_.resize(depth);
  for (Slot& s : lane->slots_) {
    // One extra page so the usable start can be page-aligned whatever the runtime returns:
    // O_DIRECT needs aligned memory.
    if (hipError_t e = hipHostMalloc(&s.raw, slot_bytes + kPage, hipHostMallocPortable); e != hipSuccess) {
      s.raw = nullptr;
      st = Status::of_hip(e);
      return nullptr;  // ~Lane frees what was made
    }
    auto addr = reinterpret_cast<std::uintptr_t>(s.raw);
    s.host = reinterpret_cast<std::byte*>((addr + kPage - 1) & ~std::uintptr_t{kPage - 1});
    if (hipError_t e = hipEventCreateWithFlags(&s.done, event_flags); e != hipSuccess) {
      s.done = nullptr;
      st = Status::of_hip(e);
      return nullptr;
    }
  }
  return lane;
}

Lane::~Lane() {
  gpu::DeviceGuard guard(device_);
  if (stream_) (void)hipStreamSynchronize(stream_);
  for (Slot& s : slots_) {
    if (s.done) (void)hipEventDestroy(s.done);
    if (s.raw) (void)hipHostFree(s.raw);
  }
  if (drained_) (void)hipEventDestroy(drained_);
  if (stream_) (void)hipStreamDestroy(stream_);
}

hipError_t Lane::free_slot(Slot& s) noexcept {
  hipError_t e = hipSuccess;
  if (s.busy) e = hipEventSynchronize(s.done);
  s.busy = false;
  if (s.pinned_pages) {
    // Only after its copy finished: the copy engine reads those pages until then.
    hipError_t u = hipHostUnregister(s.pinned_pages);
    if (e == hipSuccess) e = u;
    s.pinned_pages = nullptr;
  }
  return e;
}

hipError_t Lane::drain() noexcept {
  hipError_t e = hipSuccess;
  if (drained_) {
    e = hipEventRecord(drained_, stream_);
    if (e == hipSuccess) e = hipEventSynchronize(drained_);
  } else {
    e = hipStreamSynchronize(stream_);
  }
  for (Slot& s : slots_) {
    s.busy = false;  // the stream is idle: no event to wait for
    if (hipError_t u = free_slot(s); e == hipSuccess) e = u;
  }
  return e;
}

std::unique_ptr<Lane> LanePool::acquire(int device, Status& st) {
  {
    std::lock_guard lock(mu_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if ((*it)->device() == device) {
        std::unique_ptr<Lane> lane = std::move(*it);
        free_.erase(it);
        return lane;
      }
    }
  }
  return Lane::create(device, depth_, slot_bytes_, st, false, follows_null_stream_);
}

void LanePool::release(std::unique_ptr<Lane> lane) {
  if (!lane) return;
  std::lock_guard lock(mu_);
  free_.push_back(std::move(lane));
}

void LanePool::clear() {
  std::vector<std::unique_ptr<Lane>> all;
  {
    std::lock_guard lock(mu_);
    all.swap(free_);
  }
}

}  // namespace hipfile::engine
