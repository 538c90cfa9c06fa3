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
  std::lock_guard lock(mu_);
  SizeClass& c = class_of(slot_bytes);
  const std::size_t reused = std::min(c.free.size(), n);
  std::vector<std::byte*> made;
  while (reused + made.size() < n) {
    void* p = nullptr;
    hipError_t e = bytes_made_ + (made.size() + 1) * slot_bytes > limit_ ? hipErrorOutOfMemory
                                                                          : gpu::alloc_pinned(p, slot_bytes);
    if (e != hipSuccess) {
      for (std::byte* slot : made) (void)gpu::free_pinned(slot, slot_bytes);
      HIPFILE_LOG(Debug, "stream-ordered I/O staging: %zu more slots of %zu KiB refused (%zu KiB made, limit %zu KiB)",
                  n - reused, slot_bytes >> 10, bytes_made_ >> 10, limit_ >> 10);
      return e;
    }
    made.push_back(static_cast<std::byte*>(p));
  }
  c.all.reserve(c.all.size() + made.size());
  c.free.reserve(c.all.size() + made.size());  // give_back then never allocates
  c.all.insert(c.all.end(), made.begin(), made.end());
  bytes_made_ += made.size() * slot_bytes;
  out.insert(out.end(), c.free.end() - static_cast<std::ptrdiff_t>(reused), c.free.end());
  c.free.resize(c.free.size() - reused);
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
