// SPDX-License-Identifier: MIT
// One request as the threads that move it share it: its chunks, the claims on them, and what
// came of them. Made by Engine::execute (engine.cpp), moved by the movers (movers.cpp,
// mapped.cpp) on the caller's thread or the workers (workers.cpp).
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "io/file.hpp"
#include "io/request.hpp"
#include "io/status.hpp"
#include "staging/trace.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

class FileMapping;

/// What a slot holds beyond its chunk: an O_DIRECT read widens the chunk to whole blocks at
/// both ends.
inline constexpr std::size_t kAlignSlack = 2 * 4096;

/// Asks the kernel to start reading [begin, end) into the page cache now, without waiting.
inline void advise(int fd, off_t begin, off_t end) noexcept {
  if (end > begin) (void)sys::ops.fadvise(fd, begin, end - begin, POSIX_FADV_WILLNEED);
}

struct Job {
  /// `req` cut into chunks of `chunk_size` bytes at multiples of it in file-offset space.
  Job(const Request& r, off_t chunk_size) noexcept
      : req(r),
        chunk(chunk_size),
        end(r.offset + static_cast<off_t>(r.size)),
        next(r.offset / chunk_size),
        last((end - 1) / chunk_size),
        one_chunk(last == r.offset / chunk_size),
        eof(end),
        lost(end),
        first_index_(r.offset / chunk_size),
        uniform_index_(first_index_) {}

  Request req;
  off_t chunk = 0;                 // chunk size for this job
  off_t end = 0;                   // req.offset + req.size
  std::atomic<off_t> next{0};      // next chunk index to claim
  off_t last = 0;                  // last chunk index
  std::atomic<bool> failed{false};
  // A lane could not confirm that its copies finished: they may still read the mapping.
  std::atomic<bool> device_in_doubt{false};
  std::atomic<bool> made_lanes{false};  // a participant made its lane (pinned slots, stream) for it
  const FileMapping* mapping = nullptr;  // set: read through pinned page-cache pages
  off_t prefetch_ahead = 0;        // cold buffered read: chunks advised (WILLNEED) ahead of the claims
  bool one_chunk = false;          // the whole request is one chunk
  std::uint64_t trace_id = 0;      // the request's number in HIPFILE_TRACE_FILE's trace; 0 untraced
  const trace::Clock* trace_clock = nullptr;  // traced on a device: its clock at the request's start

  std::mutex mu;
  std::condition_variable done_cv;
  Status error;
  off_t eof;                       // lowest file offset where a read came up short
  off_t lost;                      // lowest start of a claimed chunk that did not complete
  int participants = 0;
  std::atomic<int> finished{0};        // participants done with the job (changed under mu)
  std::atomic<int> finished_reads{0};  // staged-read participants past their last read (reads_done)
  bool awaited = false;            // on the workers, its caller waiting in Engine::await

  /// Starts the job with smaller pieces, so that the first copies begin sooner: `per_round`
  /// pieces of `first` bytes, then `per_round` of twice that, and so on while below the chunk
  /// size; then one piece up to the next multiple of the chunk size, from which the chunks are
  /// uniform again. Each piece ends on a multiple of its own size (so O_DIRECT alignment holds
  /// as for chunks). Called before the first claim; nothing changes for a one-chunk request or
  /// a `first` not below the chunk size.
  void ramp_up(off_t first, int per_round) {
    if (one_chunk || first <= 0 || first >= chunk || per_round <= 0) return;
    off_t at = req.offset;
    for (off_t size = first; size < chunk && at < end; size *= 2)
      for (int i = 0; i < per_round && at < end; ++i) {
        ramp_.push_back(at);
        at = boundary_after(at, size);
      }
    // The first chunk boundary at or after `at`, as an index: its offset may lie past the
    // largest file offset when the request ends within a chunk of it.
    uniform_index_ = at / chunk + (at % chunk != 0 ? 1 : 0);
    if (at < end && at % chunk != 0) ramp_.push_back(at);
    first_index_ = uniform_index_ - static_cast<off_t>(ramp_.size());
    next.store(first_index_, std::memory_order_relaxed);
    last = std::max(uniform_index_ - 1, (end - 1) / chunk);
  }

  /// Chunks in the request (all of them until the first claim).
  off_t chunks() const noexcept { return last - first_index_ + 1; }
  // The file range of chunk k, clipped to the request. The last chunk ends at `end`, so no
  // product passes end (a request may end at the largest file offset).
  std::pair<off_t, off_t> range(off_t k) const noexcept {
    if (k < uniform_index_) {  // a ramp piece
      const auto i = static_cast<std::size_t>(k - first_index_);
      return {ramp_[i], i + 1 < ramp_.size() ? ramp_[i + 1] : start_of(uniform_index_)};
    }
    return {std::max(req.offset, k * chunk), k >= last ? end : (k + 1) * chunk};
  }
  // End of the chunks claimed so far: every chunk past it is untouched.
  off_t claimed_end() const noexcept {
    const off_t n = next.load(std::memory_order_relaxed);
    if (n > last) return end;
    return n < uniform_index_ ? ramp_[static_cast<std::size_t>(n - first_index_)] : std::max(req.offset, n * chunk);
  }
  // The contiguous prefix that moved: up to the first chunk that failed or was skipped, the
  // first short read, and the last claimed chunk.
  off_t moved_end() const noexcept { return std::min({lost, eof, claimed_end()}); }
  // Claims up to `n` consecutive chunks [first, last]; false when none is left.
  bool claim_run(off_t n, off_t& first, off_t& last_claimed) noexcept {
    if (failed.load(std::memory_order_relaxed)) return false;
    first = next.fetch_add(n, std::memory_order_relaxed);
    if (first > last) return false;
    last_claimed = std::min(first + n - 1, last);
    return true;
  }
  bool claim(off_t& k) noexcept {
    if (failed.load(std::memory_order_relaxed)) return false;
    k = next.fetch_add(1, std::memory_order_relaxed);
    return k <= last;
  }
  // Cold buffered reads: whoever claims chunk k asks for chunk k + prefetch_ahead, so the disk
  // always has that window queued (the first window is asked for when the job starts).
  void prefetch_for(off_t k) const noexcept {
    if (prefetch_ahead == 0 || k + prefetch_ahead > last) return;
    auto [a, b] = range(k + prefetch_ahead);
    advise(req.file->buffered_fd, a, b);
  }
  /// The job failed; the chunk starting at `at` (and so everything from it on) is not known to
  /// have moved. Without `at`, the failing thread had claimed nothing.
  void fail(Status st, off_t at = -1) {
    std::lock_guard lock(mu);
    if (error.ok()) error = st;
    if (at >= 0) lost = std::min(lost, at);
    failed = true;
  }
  /// A claimed chunk at `at` was not moved because the job had already failed.
  void skipped(off_t at) {
    std::lock_guard lock(mu);
    lost = std::min(lost, at);
  }
  void short_at(off_t offset) {
    std::lock_guard lock(mu);
    eof = std::min(eof, offset);
  }
  void participant_done() {
    std::lock_guard lock(mu);
    if (finished.fetch_add(1) + 1 == participants) done_cv.notify_all();
  }
  /// A participant of a staged read has read its last chunk: only its queued copies are left.
  /// When every participant has, the caller is woken to wait for those awake (Engine::await).
  void reads_done() {
    if (!awaited || finished_reads.fetch_add(1) + 1 != participants) return;
    std::lock_guard lock(mu);
    done_cv.notify_all();
  }

 private:
  // The next multiple of `size` after `at`, or `end` if that comes first: never computed past
  // `end`, so a request ending at the largest file offset cannot overflow.
  off_t boundary_after(off_t at, off_t size) const noexcept {
    const off_t step = size - at % size;
    return step >= end - at ? end : at + step;
  }
  // The offset of chunk k, clipped to the request's end (without forming a product past it).
  off_t start_of(off_t k) const noexcept { return k > end / chunk ? end : std::min(end, k * chunk); }

  off_t first_index_;          // the first chunk's index
  off_t uniform_index_;        // the first index of uniform chunks; below it, ramp pieces
  std::vector<off_t> ramp_;    // the ramp pieces' start offsets (ramp_up)
};

}  // namespace hipfile::engine
