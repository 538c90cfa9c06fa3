// SPDX-License-Identifier: MIT
// A lane is what one thread needs to move data through pinned host memory to or from one
// device: its own stream and `depth` page-aligned pinned slots, each with an event that says
// when the copy using it has finished. Lanes are created once and reused for every request.
#pragma once

#include <hip/hip_runtime_api.h>

#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "io/config.hpp"
#include "io/status.hpp"
#include "staging/trace.hpp"

namespace hipfile::engine {

struct Slot {
  std::byte* host = nullptr;   // pinned, page-aligned (gpu::alloc_pinned), as O_DIRECT needs
  hipEvent_t done = nullptr;   // recorded after the copy that uses this slot
  bool busy = false;
  void* pinned_pages = nullptr;  // mapped path: page-cache range registered for the copy, if any
};

class Lane {
 public:
  /// Creates the stream, slots and events on `device`. The caller's current device is kept.
  /// `wait`: how the lane's owner waits for its copies. Spinning (HIP's default) answers at
  /// once but holds a core; polling and blocking leave the CPU to threads that have copying to
  /// do, at the cost of up to a sleep's or a wake-up's latency per wait.
  /// `follows_null_stream`: the lane's stream is a blocking one, so under the legacy NULL stream's
  /// rules its copies wait for earlier NULL-stream work without a host-side synchronize.
  static std::unique_ptr<Lane> create(int device, unsigned depth, std::size_t slot_bytes, Status& st,
                                      WaitMode wait = WaitMode::spin, bool follows_null_stream = false);
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  int device() const noexcept { return device_; }
  hipStream_t stream() const noexcept { return stream_; }
  std::size_t depth() const noexcept { return slots_.size(); }
  std::size_t slot_bytes() const noexcept { return slot_bytes_; }
  /// The ring's next slot: the slots take turns, so the read into one overlaps the copies from
  /// the others. Its last copy may still run: free_slot() it before refilling it.
  Slot& next_slot() noexcept {
    Slot& s = slots_[next_];
    next_ = static_cast<unsigned>((next_ + 1) % slots_.size());
    return s;
  }
  /// Starts the ring at slot `at` (each run of a job starts at the first) and returns where it
  /// stood, for a caller that takes the ring over for a while and then gives it back.
  unsigned restart_ring(unsigned at = 0) noexcept { return std::exchange(next_, at); }
  /// Waits for `event` (a slot's or the drain's) the way the lane was made to wait; `last`: the
  /// wait that ends the owner's part of a request, polled more closely.
  hipError_t wait_for(hipEvent_t event, bool last = false) const noexcept;
  /// Waits for the slot's last copy and releases what it used. Returns the first error.
  hipError_t free_slot(Slot& s) noexcept;
  /// Waits for everything queued on the lane and frees every slot.
  hipError_t drain() noexcept;
  /// A wait failed and the runtime could not say that the lane's copies finished: its slots and
  /// the pages they pinned may still be read or written by the device, so none is released or
  /// reused, and the lane's memory is never freed (the owner leaks it; see release_lane).
  bool poisoned() const noexcept { return poisoned_; }
  /// The lane's copies as HIPFILE_TRACE_FILE records them, made at the first traced copy; null
  /// when it could not be made.
  trace::LaneLog* trace_log() noexcept;

 private:
  Lane() = default;
  /// The stream, the drain event of a lane that does not spin, and `depth` slots. On failure
  /// what was made stays for ~Lane to free.
  hipError_t make(unsigned depth, bool follows_null_stream);
  hipError_t make_slot(Slot& s) noexcept;
  /// After a failed synchronize: asks the runtime until the stream is idle (true) or it reports an
  /// error instead of "not ready" (false: the lane is poisoned).
  bool confirm_idle() noexcept;
  int device_ = -1;
  unsigned next_ = 0;  // the ring's next slot
  hipStream_t stream_ = nullptr;
  std::vector<Slot> slots_;
  std::size_t slot_bytes_ = 0;
  hipEvent_t drained_ = nullptr;  // lanes that do not spin: recorded and waited on by drain()
  WaitMode wait_ = WaitMode::spin;
  bool poisoned_ = false;
  std::unique_ptr<trace::LaneLog> trace_;
};

/// Destroys a lane, or leaks it when poisoned: its memory may still be in use by the device.
void release_lane(std::unique_ptr<Lane> lane) noexcept;

/// Lanes for requests run on their callers' threads, per device, handed out and returned. At
/// most `max_lanes` lanes of a device exist at once (the pinned-memory budget counts them): a
/// caller finding all of them out waits for one to come back.
class LanePool {
 public:
  LanePool(unsigned depth, std::size_t slot_bytes, unsigned max_lanes, bool follows_null_stream = false)
      : depth_(depth), slot_bytes_(slot_bytes), max_lanes_(max_lanes < 1 ? 1 : max_lanes),
        follows_null_stream_(follows_null_stream) {}
  std::unique_ptr<Lane> acquire(int device, Status& st);
  void release(std::unique_ptr<Lane> lane);
  void clear();

 private:
  std::mutex mu_;
  std::condition_variable returned_;
  unsigned waiting_ = 0;  // callers in acquire() waiting for a lane: only they need a notify
  std::vector<std::unique_ptr<Lane>> free_;  // the last returned at the back: its slots are warm
  std::map<int, unsigned> lanes_;  // per device: lanes created and not destroyed (out or free)
  unsigned depth_;
  std::size_t slot_bytes_;
  unsigned max_lanes_;
  bool follows_null_stream_;
};

}  // namespace hipfile::engine
