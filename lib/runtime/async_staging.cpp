// SPDX-License-Identifier: MIT
#include "runtime/async_staging.hpp"

#include <algorithm>

#include "gpu/copy.hpp"
#include "sys/log.hpp"

namespace hipfile::engine {

StagingSlots::StagingSlots(std::size_t largest, std::size_t limit) : limit_(limit) {
  while (largest_ * 2 <= largest) largest_ *= 2;
  for (std::size_t bytes = kSmallest; bytes <= largest_; bytes *= 2) classes_.emplace_back();
}

StagingSlots::~StagingSlots() {
  std::size_t bytes = kSmallest;
  for (SizeClass& c : classes_) {
    for (std::byte* slot : c.all) (void)gpu::free_pinned(slot, bytes);
    bytes *= 2;
  }
}

std::size_t StagingSlots::slot_size_for(std::size_t bytes) const noexcept {
  std::size_t slot = kSmallest;
  while (slot < bytes && slot < largest_) slot *= 2;
  return slot;
}

StagingSlots::SizeClass& StagingSlots::class_of(std::size_t slot_bytes) noexcept {
  std::size_t i = 0;
  for (std::size_t b = kSmallest; b < slot_bytes; b *= 2) ++i;
  return classes_[i];
}

hipError_t StagingSlots::take(std::size_t slot_bytes, std::size_t n, std::vector<std::byte*>& out) {
  SizeClass& c = class_of(slot_bytes);
  std::vector<std::byte*> got;
  std::size_t to_make = 0;
  {
    std::lock_guard lock(mu_);
    const std::size_t reused = std::min(c.free.size(), n);
    got.assign(c.free.end() - static_cast<std::ptrdiff_t>(reused), c.free.end());
    c.free.resize(c.free.size() - reused);
    to_make = n - reused;
    if (bytes_made_ + to_make * slot_bytes > limit_) {
      c.free.insert(c.free.end(), got.begin(), got.end());
      HIPFILE_LOG(Debug, "stream-ordered I/O staging: %zu more slots of %zu KiB would pass the pinned limit (%zu KiB)",
                  to_make, slot_bytes >> 10, limit_ >> 10);
      return hipErrorOutOfMemory;
    }
    bytes_made_ += to_make * slot_bytes;  // counted now, so that concurrent takes respect the limit
  }
  // Pinning takes the runtime's locks, which a free in another thread holds while the device
  // drains; give_back, in a host function on a draining stream, must not wait behind it.
  hipError_t e = hipSuccess;
  std::vector<std::byte*> made;
  while (made.size() < to_make && e == hipSuccess) {
    void* p = nullptr;
    if (e = gpu::alloc_pinned(p, slot_bytes); e == hipSuccess) made.push_back(static_cast<std::byte*>(p));
  }
  if (e != hipSuccess)
    for (std::byte* slot : made) (void)gpu::free_pinned(slot, slot_bytes);
  std::lock_guard lock(mu_);
  if (e != hipSuccess) {
    c.free.insert(c.free.end(), got.begin(), got.end());
    bytes_made_ -= to_make * slot_bytes;
    return e;
  }
  c.all.insert(c.all.end(), made.begin(), made.end());
  c.free.reserve(c.all.size());  // give_back then never allocates
  out.insert(out.end(), got.begin(), got.end());
  out.insert(out.end(), made.begin(), made.end());
  return hipSuccess;
}

void StagingSlots::give_back(std::size_t slot_bytes, std::vector<std::byte*>& slots) noexcept {
  std::lock_guard lock(mu_);
  SizeClass& c = class_of(slot_bytes);
  c.free.insert(c.free.end(), slots.begin(), slots.end());
  slots.clear();
}

std::size_t StagingSlots::bytes_made() const {
  std::lock_guard lock(mu_);
  return bytes_made_;
}

}  // namespace hipfile::engine
