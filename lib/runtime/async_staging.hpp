// SPDX-License-Identifier: MIT
// The pinned staging of stream-ordered I/O: slots in power-of-two sizes from 64 KiB up to the
// engine's chunk, taken at submission (the copies queued on the caller's stream name their
// addresses) and given back when the stream has passed the operation. A slot is never freed
// while an operation may use it: give_back runs in a host function, where no HIP call may be
// made, so it only returns the slot to its free list; every slot is freed with the pool, on the
// driver's close path, once no operation holds the instance.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <vector>

namespace hipfile::engine {

class StagingSlots {
 public:
  static constexpr std::size_t kSmallest = 64u << 10;

  /// Slots of at most `largest` bytes (rounded down to a power of two, at least kSmallest), and
  /// at most `limit` bytes of them in all.
  StagingSlots(std::size_t largest, std::size_t limit);
  ~StagingSlots();
  StagingSlots(const StagingSlots&) = delete;
  StagingSlots& operator=(const StagingSlots&) = delete;

  /// The slot size for an operation of `bytes`: the smallest that holds it, or the largest.
  std::size_t slot_size_for(std::size_t bytes) const noexcept;
  /// Appends `n` slots of `slot_bytes` (a slot_size_for value) to `out`: free ones first, then
  /// new ones. All or nothing: on failure `out` is as it was and the HIP error is returned
  /// (hipErrorOutOfMemory past the limit). Never waits for other operations, whose streams may
  /// be held by work the caller queues after this call.
  hipError_t take(std::size_t slot_bytes, std::size_t n, std::vector<std::byte*>& out);
  /// Returns slots of `slot_bytes` for reuse. Allocates nothing (take reserved the room) and
  /// calls no HIP.
  void give_back(std::size_t slot_bytes, std::vector<std::byte*>& slots) noexcept;
  /// Bytes of slots made so far (the peak of what operations in flight held at once).
  std::size_t bytes_made() const;

 private:
  struct SizeClass {
    std::vector<std::byte*> free;
    std::vector<std::byte*> all;
  };
  SizeClass& class_of(std::size_t slot_bytes) noexcept;

  std::size_t largest_ = kSmallest;
  const std::size_t limit_;
  mutable std::mutex mu_;
  std::vector<SizeClass> classes_;  // kSmallest << i
  std::size_t bytes_made_ = 0;
};

}  // namespace hipfile::engine
