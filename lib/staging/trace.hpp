// SPDX-License-Identifier: MIT
// A timeline of the staged reads (HIPFILE_TRACE_FILE, off by default; a diagnostic), on the
// workers or the caller's thread: each request's start and end on the caller's thread, and each
// chunk's claim, free slot, finished read and queued copy on the thread that moved it, with the
// copy's start and end on the GPU taken from timing events around it. It is CSV, written at the
// last close or at exit; bench/timeline.py reads it and says where the link idles at a call's
// start and end (bench/HISTORY.md, "The per-call bubble"). Off, a trace point costs one relaxed load and a branch.
#pragma once

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::engine::trace {

namespace detail {
inline std::atomic<bool> enabled{false};
}

inline bool on() noexcept { return detail::enabled.load(std::memory_order_relaxed); }
/// Nanoseconds of the steady clock: every time in the trace.
std::int64_t now() noexcept;

/// At each driver open: an empty path turns the trace off; a path turns it on, and the lines
/// gathered so far are written there at the last close or at exit.
void on_open(const std::string& path);
/// Writes what was gathered (the file is rewritten whole each time). False when it cannot.
bool write();

/// A new request's number in the trace.
std::uint64_t next_request() noexcept;
/// A request that ran on `participants` workers, from `begin` (execute() entered) to `end`
/// (every participant done).
void request(std::uint64_t id, off_t offset, std::size_t size, int participants, std::int64_t begin,
             std::int64_t end);

/// Host times of one chunk on its worker, before its copy is queued.
struct ChunkTimes {
  std::int64_t claimed = 0;    // the worker took the chunk
  std::int64_t slot_free = 0;  // the slot's previous copy had finished
  std::int64_t read_done = 0;  // the chunk is in the slot
};

/// A device's clock tied to the host's at the start of a traced request: an event recorded on
/// the trace's own non-blocking stream of that device (idle, and waiting for no other stream, so
/// that the request never waits on the application's work) and waited for, at the middle of that
/// round trip. Every lane of the request reads its copies' times against it, so they share one
/// error (half the round trip) instead of each having its own.
class Clock {
 public:
  explicit Clock(int device) noexcept;
  ~Clock();
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  /// The host time at which `event` (recorded and complete on the same device) completed; 0 when
  /// the runtime cannot say.
  std::int64_t host_time(hipEvent_t event) const noexcept;

 private:
  hipEvent_t reference_ = nullptr;
  std::int64_t host_ = 0;
};

/// One lane's traced copies: a timing event before and after each, turned into host times once
/// the lane's stream is idle (flush).
class LaneLog {
 public:
  explicit LaneLog(hipStream_t stream) noexcept : stream_(stream) {}
  ~LaneLog();
  LaneLog(const LaneLog&) = delete;
  LaneLog& operator=(const LaneLog&) = delete;

  /// Records the event before a copy; false when it could not (the copy is then not traced).
  bool before_copy() noexcept;
  /// Records the event after the copy just queued and keeps what the line needs.
  void after_copy(std::uint64_t request, off_t offset, std::size_t bytes, const ChunkTimes& t) noexcept;
  /// The stream is idle: every kept copy becomes a line of the trace, its times read on `clock`
  /// (null: the lane could not confirm the copies finished, and their GPU times are written as 0).
  void flush(const Clock* clock) noexcept;

 private:
  struct Copy {
    std::uint64_t request;
    off_t offset;
    std::size_t bytes;
    ChunkTimes times;
    std::int64_t queued;
    hipEvent_t start, end;
  };
  hipEvent_t take_event() noexcept;
  void give_back(hipEvent_t e) noexcept;
  hipStream_t stream_;
  hipEvent_t pending_start_ = nullptr;
  std::vector<Copy> copies_;
  std::vector<hipEvent_t> spare_;
};

}  // namespace hipfile::engine::trace
