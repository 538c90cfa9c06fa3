// SPDX-License-Identifier: MIT
#include "runtime/buffer_table.hpp"

#include <cstdint>
#include <mutex>
#include <vector>

namespace hipfile::engine {

namespace {

// A zero-length registration still owns its base address.
const std::byte* end_of(const Buffer& b) noexcept { return b.base + (b.length ? b.length : 1); }

}  // namespace

Status BufferTable::add(const std::byte* base, std::size_t length, int device, gpu::MemKind kind,
                        int flags, std::uint64_t alloc_id) {
  auto buf = std::make_shared<Buffer>();
  buf->base = base;
  buf->length = length;
  buf->device = device;
  buf->kind = kind;
  buf->flags = flags;
  buf->alloc_id = alloc_id;
  const std::byte* end = end_of(*buf);

  std::unique_lock lock(mu_);
  auto next = by_base_.lower_bound(base);
  if (next != by_base_.end() && next->first < end) return Status::of(Error::MemoryAlreadyRegistered);
  if (next != by_base_.begin()) {
    auto prev = std::prev(next);
    if (end_of(*prev->second) > base) return Status::of(Error::MemoryAlreadyRegistered);
  }
  by_base_.emplace(base, std::move(buf));
  return Status::success();
}

std::size_t BufferTable::drop_stale(const std::byte* base, std::size_t length,
                                   const std::function<bool(const Buffer&)>& stale) {
  const auto lo = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t hi = length > UINTPTR_MAX - lo ? UINTPTR_MAX : lo + (length ? length : 1);
  std::vector<std::shared_ptr<Buffer>> overlapping;
  {
    std::shared_lock lock(mu_);
    auto it = by_base_.upper_bound(base);
    if (it != by_base_.begin() && end_of(*std::prev(it)->second) > base) --it;
    for (; it != by_base_.end() && reinterpret_cast<std::uintptr_t>(it->first) < hi; ++it)
      overlapping.push_back(it->second);
  }
  std::size_t dropped = 0;
  for (auto& buf : overlapping) {
    if (!stale(*buf)) continue;  // asked outside the lock: it calls the HIP runtime
    {
      std::unique_lock lock(mu_);
      auto it = by_base_.find(buf->base);
      if (it == by_base_.end() || it->second != buf) continue;  // removed meanwhile
      by_base_.erase(it);
    }
    buf->inflight.wait_idle();
    ++dropped;
  }
  return dropped;
}

Lease<Buffer> BufferTable::find_containing(const void* p) const {
  const auto* b = static_cast<const std::byte*>(p);
  std::shared_lock lock(mu_);
  auto it = by_base_.upper_bound(b);
  if (it == by_base_.begin()) return {};
  --it;
  if (b >= end_of(*it->second)) return {};
  return Lease<Buffer>(it->second);
}

bool BufferTable::contains_base(const void* base) const {
  std::shared_lock lock(mu_);
  return by_base_.count(static_cast<const std::byte*>(base)) != 0;
}

bool BufferTable::remove(const void* base) {
  std::shared_ptr<Buffer> buf;
  {
    std::unique_lock lock(mu_);
    auto it = by_base_.find(static_cast<const std::byte*>(base));
    if (it == by_base_.end()) return false;
    buf = std::move(it->second);
    by_base_.erase(it);
  }
  buf->inflight.wait_idle();
  return true;
}

void BufferTable::clear() {
  std::vector<std::shared_ptr<Buffer>> all;
  {
    std::unique_lock lock(mu_);
    for (auto& [base, b] : by_base_) all.push_back(std::move(b));
    by_base_.clear();
  }
  for (auto& b : all) b->inflight.wait_idle();
}

std::size_t BufferTable::size() const {
  std::shared_lock lock(mu_);
  return by_base_.size();
}

}  // namespace hipfile::engine
