// SPDX-License-Identifier: MIT
// The staged movers: file data through the lane's pinned slots (or straight into host memory),
// each leaving its lane drained.
#include "staging/movers.hpp"

#include <cerrno>
#include <cstdint>

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>

#include "gpu/copy.hpp"
#include "io/config.hpp"
#include "staging/job.hpp"
#include "staging/lanes.hpp"
#include "staging/moved.hpp"
#include "staging/trace.hpp"
#include "sys/log.hpp"
#include "sys/page_cache.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

namespace {

constexpr off_t kMaxOffset = std::numeric_limits<off_t>::max();  // rounding a chunk out to O_DIRECT blocks

off_t align_down(off_t v, off_t a) noexcept { return v - v % a; }

// Statistics: `n` bytes (when positive) moved through the page cache or with O_DIRECT.
void moved(MovedSlot slot, Direction dir, bool direct, ssize_t n) noexcept {
  if (n > 0) count_moved(slot, dir, direct, static_cast<std::size_t>(n));
}
off_t align_up(off_t v, off_t a) noexcept { return align_down(v + a - 1, a); }

// Whether an O_DIRECT client's read of [a, b) goes to the disk: not when the page cache holds it
// all (with `from_cache`), since O_DIRECT would read it from the disk again. The bytes are the
// same: the page cache is the file's contents as every reader sees them, dirty pages included
// (an O_DIRECT read first writes those back and then reads what they held), and O_DIRECT writes
// invalidate the cached pages they cover. Pages evicted after the check are read buffered.
bool read_direct(const File& f, off_t a, off_t b, bool from_cache) noexcept {
  if (!f.use_direct || !f.direct_ok.load(std::memory_order_relaxed)) return false;
  return !from_cache || !sys::range_cached(f.buffered_fd, a, static_cast<std::size_t>(b - a));
}

// Reads file range [a, b) into `stage`. With O_DIRECT the range is widened to whole blocks, so
// the wanted bytes start at `skew` inside the slot. Returns the bytes of [a, b) now in the slot
// (fewer only at end of file) or -errno; `direct` says whether O_DIRECT read them.
ssize_t read_to_stage(File& f, std::byte* stage, std::size_t capacity, off_t a, off_t b, off_t& skew,
                      bool from_cache, bool& direct) {
  skew = 0;
  direct = false;
  const off_t len = b - a;
  // A range within one block of the largest offset cannot be widened: it is read buffered.
  if (b <= kMaxOffset - f.dio_align && read_direct(f, a, b, from_cache)) {
    const off_t al = f.dio_align;
    const off_t aa = align_down(a, al), bb = align_up(b, al);
    if (static_cast<std::size_t>(bb - aa) <= capacity) {
      ssize_t n = sys::pread_full(f.direct_fd, stage, static_cast<std::size_t>(bb - aa), aa);
      if (n >= 0) {
        skew = a - aa;
        direct = true;
        return static_cast<ssize_t>(std::clamp<off_t>(n - skew, 0, len));
      }
      if (n != -EINVAL) return n;
      f.direct_ok = false;  // the file system refuses this direct I/O: stay buffered
      HIPFILE_LOG(Info, "O_DIRECT read refused (EINVAL) at offset %lld: this file continues buffered", static_cast<long long>(aa));
    }
  }
  return sys::pread_full(f.buffered_fd, stage, static_cast<std::size_t>(len), a);
}

// Writes [a, b) from `src`: O_DIRECT where the client asked for it and the range and memory
// are aligned, buffered otherwise. Returns what reached the file (counted for `path` as moved)
// and the errno that stopped it, if any.
sys::Written write_range(File& f, const std::byte* src, off_t a, off_t b, MovedSlot path) {
  const off_t len = b - a;
  if (f.use_direct && f.direct_ok.load(std::memory_order_relaxed) && a % f.dio_align == 0 &&
      len % f.dio_align == 0 && reinterpret_cast<std::uintptr_t>(src) % f.mem_align == 0) {
    const sys::Written w = sys::pwrite_full(f.direct_fd, src, static_cast<std::size_t>(len), a);
    if (w.error != EINVAL || w.bytes != 0) {
      moved(path, Direction::Write, true, static_cast<ssize_t>(w.bytes));
      return w;
    }
    f.direct_ok = false;
    HIPFILE_LOG(Info, "O_DIRECT write refused (EINVAL) at offset %lld: this file continues buffered", static_cast<long long>(a));
  }
  const sys::Written w = sys::pwrite_full(f.buffered_fd, src, static_cast<std::size_t>(len), a);
  moved(path, Direction::Write, false, static_cast<ssize_t>(w.bytes));
  return w;
}

}  // namespace

void run_host(Job& job, const Config& config) {
  File& f = *job.req.file;
  off_t k;
  while (job.claim(k)) {
    job.prefetch_for(k);
    auto [a, b] = job.range(k);
    std::byte* mem = job.req.mem + (a - job.req.offset);
    if (job.req.dir == Direction::Read) {
      ssize_t n = -EINVAL;
      const bool aligned = a % f.dio_align == 0 && (b - a) % f.dio_align == 0 &&
                           reinterpret_cast<std::uintptr_t>(mem) % f.mem_align == 0;
      if (aligned && read_direct(f, a, b, config.direct_reads_from_cache))
        n = sys::pread_full(f.direct_fd, mem, static_cast<std::size_t>(b - a), a);
      const bool direct = n != -EINVAL;
      if (!direct) n = sys::pread_full(f.buffered_fd, mem, static_cast<std::size_t>(b - a), a);
      moved(MovedSlot::Host, Direction::Read, direct, n);
      if (n < 0) return job.fail(Status::of_errno(static_cast<int>(-n)), a);
      if (n < b - a) job.short_at(a + n);
    } else {
      const sys::Written w = write_range(f, mem, a, b, MovedSlot::Host);
      if (w.error != 0) return job.fail(Status::of_errno(w.error), a + static_cast<off_t>(w.bytes));
    }
  }
}

bool stage_piece(Job& job, Lane& lane, const Config& config, off_t a, off_t b, off_t unconfirmed, bool track) {
  trace::ChunkTimes times;
  if (job.trace_id != 0) times.claimed = trace::now();
  Slot& s = lane.next_slot();
  // Its previous copy must finish before the slot is refilled.
  if (hipError_t e = lane.free_slot(s); e != hipSuccess) {
    job.fail(Status::of_hip(e), unconfirmed);
    return false;
  }
  if (job.trace_id != 0) times.slot_free = trace::now();
  off_t skew = 0;
  bool direct = false;
  ssize_t n = read_to_stage(*job.req.file, s.host, lane.slot_bytes(), a, b, skew, config.direct_reads_from_cache,
                            direct);
  moved(MovedSlot::Engine, Direction::Read, direct, n);
  if (n < 0) {
    job.fail(Status::of_errno(static_cast<int>(-n)), a);
    return false;
  }
  if (n < b - a) job.short_at(a + n);
  if (n == 0) return true;
  trace::LaneLog* log = nullptr;
  if (job.trace_id != 0) {
    times.read_done = trace::now();
    log = lane.trace_log();
    if (log && !log->before_copy()) log = nullptr;
  }
  hipError_t e = gpu::copy_to_device_async(job.req.mem + (a - job.req.offset), s.host + skew,
                                           static_cast<std::size_t>(n), lane.stream());
  if (e == hipSuccess && log) log->after_copy(job.trace_id, a, static_cast<std::size_t>(n), times);
  if (e == hipSuccess && track) e = gpu::record_event(s.done, lane.stream());
  if (e != hipSuccess) {
    job.fail(Status::of_hip(e), unconfirmed);
    return false;
  }
  s.busy = track;
  return true;
}

void run_read(Job& job, Lane& lane, const Config& config) {
  // A one-chunk job (every small read) never reuses its slot, and drain() waits for the whole
  // stream: its copy needs no event, which saves a HIP call on every small read.
  const bool track = !job.one_chunk;
  lane.restart_ring();
  off_t first = -1;  // this thread's first chunk: its copies are confirmed only by the drain
  off_t k;
  while (job.claim(k)) {
    job.prefetch_for(k);
    auto [a, b] = job.range(k);
    if (first < 0) first = a;
    if (!stage_piece(job, lane, config, a, b, first, track)) break;
  }
  job.reads_done();
  const hipError_t drained = lane.drain();
  if (drained != hipSuccess) job.fail(Status::of_hip(drained), first);
  // The traced copies' lines, untimed when the lane could not confirm that they finished.
  if (job.trace_id != 0)
    if (trace::LaneLog* log = lane.trace_log()) log->flush(drained == hipSuccess ? job.trace_clock : nullptr);
}

namespace {

struct Pending {
  Slot* slot;
  off_t a, b;
};

// Queues the device-to-host copy of the next chunk into the lane's next slot. False when no chunk
// is left or the copy could not be queued (the job failed).
bool copy_out_next(Job& job, Lane& lane, std::deque<Pending>& pending) {
  off_t k;
  if (!job.claim(k)) return false;
  Slot& s = lane.next_slot();
  auto [a, b] = job.range(k);
  hipError_t e = gpu::copy_to_host_async(s.host, job.req.mem + (a - job.req.offset), static_cast<std::size_t>(b - a),
                                         lane.stream());
  if (e == hipSuccess) e = gpu::record_event(s.done, lane.stream());
  if (e != hipSuccess) {
    job.fail(Status::of_hip(e), a);
    return false;
  }
  pending.push_back({&s, a, b});
  return true;
}

// Writes the oldest pending chunk once its copy has finished. False when that wait failed.
bool write_oldest(Job& job, const Lane& lane, std::deque<Pending>& pending) {
  Pending p = pending.front();
  pending.pop_front();
  if (hipError_t e = lane.wait_for(p.slot->done); e != hipSuccess) {
    job.fail(Status::of_hip(e), p.a);
    return false;
  }
  // Once a failure is known no further chunk is written: the file changes as little as
  // possible past the prefix that will be reported.
  if (job.failed) {
    job.skipped(p.a);
    return true;
  }
  const sys::Written w = write_range(*job.req.file, p.slot->host, p.a, p.b, MovedSlot::Engine);
  if (w.error != 0) job.fail(Status::of_errno(w.error), p.a + static_cast<off_t>(w.bytes));
  return true;
}

}  // namespace

void run_write(Job& job, Lane& lane) {
  lane.restart_ring();
  std::deque<Pending> pending;
  bool more = true;
  for (;;) {
    // Keep up to `depth` device-to-host copies queued ahead of the writes.
    while (more && pending.size() < lane.depth()) more = copy_out_next(job, lane, pending);
    if (pending.empty() || !write_oldest(job, lane, pending)) break;
  }
  // Every chunk written above had its copy confirmed by its event; what is still queued was
  // never written, and is at or past a chunk already marked lost.
  if (hipError_t e = lane.drain(); e != hipSuccess) job.fail(Status::of_hip(e));
}

}  // namespace hipfile::engine
