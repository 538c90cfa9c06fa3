// SPDX-License-Identifier: MIT
// Registered buffers, looked up by containing range so that any pointer inside a registration
// (not only its base) uses it. Overlapping registrations are refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <shared_mutex>

#include "gpu/hip.hpp"
#include "io/inflight.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

struct Buffer {
  const std::byte* base = nullptr;
  std::size_t length = 0;
  int device = -1;
  gpu::MemKind kind = gpu::MemKind::Device;
  int flags = 0;
  std::uint64_t alloc_id = 0;  // the runtime's allocation id at registration; 0 = unknown
  InFlight inflight;
};

class BufferTable {
 public:
  /// Adds a checked registration. hipFileMemoryAlreadyRegistered for the same base or any
  /// overlap with an existing registration.
  Status add(const std::byte* base, std::size_t length, int device, gpu::MemKind kind, int flags,
             std::uint64_t alloc_id = 0);
  /// Removes the registrations overlapping [base, base + length) for which `stale` is true,
  /// waiting for I/O on them; returns how many. A registration must not outlive its memory.
  std::size_t drop_stale(const std::byte* base, std::size_t length,
                         const std::function<bool(const Buffer&)>& stale);
  /// The registration containing `p`, or an empty lease.
  Lease<Buffer> find_containing(const void* p) const;
  /// True when `base` is exactly a registered base.
  bool contains_base(const void* base) const;
  /// Removes the registration with exactly this base, waiting for I/O on it.
  /// False when none has this base.
  bool remove(const void* base);
  void clear();
  std::size_t size() const;
  /// fork(): the table's lock is held across it (the driver's atfork handlers), so that no
  /// other thread's lookup can leave the child's table locked for good.
  void lock_for_fork() { mu_.lock(); }
  void unlock_after_fork() { mu_.unlock(); }
  /// In the child the lock is made anew, not unlocked: a write lock records the thread that
  /// took it, which the child's thread is not, so unlocking it there would undo a read lock.
  void remake_lock_in_child() { new (&mu_) std::shared_mutex; }

 private:
  mutable std::shared_mutex mu_;
  std::map<const std::byte*, std::shared_ptr<Buffer>> by_base_;
};

}  // namespace hipfile::engine
