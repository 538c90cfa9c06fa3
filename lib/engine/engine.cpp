// SPDX-License-Identifier: MIT
#include "engine/engine.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <atomic>
#include <climits>
#include <limits>
#include <deque>
#include <list>
#include <map>

#include "engine/log.hpp"
#include "engine/mapped.hpp"
#include "gpu/hip.hpp"
#include "sys/page_cache.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

namespace {

constexpr std::size_t kAlignSlack = 2 * 4096;
constexpr off_t kMaxOffset = std::numeric_limits<off_t>::max();  // rounding a chunk out to O_DIRECT blocks
constexpr std::size_t kMinParallelChunk = 256u << 10;
// A cold buffered read keeps this much asked of the disk ahead of the chunks being read: the
// workers' own preads alone keep too little in flight to match one large pread's readahead.
constexpr off_t kPrefetchBytes = off_t{128} << 20;

// Whether the byte at `offset` is in the page cache (a non-blocking 1-byte read). Unknown (old
// kernels, special files) counts as resident: prefetching is then left to the kernel.
bool resident(int fd, off_t offset) noexcept {
  char byte;
  iovec v{&byte, 1};
  ssize_t n = ::preadv2(fd, &v, 1, offset, RWF_NOWAIT);
  return !(n < 0 && errno == EAGAIN);
}

// Asks the kernel to start reading [begin, end) into the page cache now, without waiting.
void advise(int fd, off_t begin, off_t end) noexcept {
  if (end > begin) (void)::posix_fadvise(fd, begin, end - begin, POSIX_FADV_WILLNEED);
}

// The file's size now, for a mapped read that must not touch pages past it (0 if unknown).
off_t current_size(int fd) noexcept {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? st.st_size : 0;
}

off_t align_down(off_t v, off_t a) noexcept { return v - v % a; }
off_t align_up(off_t v, off_t a) noexcept { return align_down(v + a - 1, a); }

std::size_t inline_chunk(const Config& c) {
  // Requests run on callers' threads are at most inline_threshold: their slots need no more
  // (whole pages, at least one), and never more than a worker's chunk.
  const std::size_t wanted = std::max<std::size_t>(4096, (std::min(c.inline_threshold, c.chunk_size) + 4095) & ~std::size_t{4095});
  return std::min(wanted, c.chunk_size);
}

}  // namespace

Config shape_engine(Config c) {
  if (!c.parallel_io) c.inline_threshold = SIZE_MAX;
  int ndev = 0;
  if (hipGetDeviceCount(&ndev) != hipSuccess || ndev < 1) ndev = 1;
  unsigned threads = c.effective_threads();
  // Per device: each worker's lane, and as many lanes again in each pool for callers' threads.
  auto need = [&] {
    const std::size_t lane = c.chunk_size + kAlignSlack, inline_lane = inline_chunk(c) + kAlignSlack;
    return static_cast<std::size_t>(threads) * c.staging_depth * (lane + 2 * inline_lane) * static_cast<std::size_t>(ndev);
  };
  const Config asked = c;
  const unsigned asked_threads = threads;
  while (need() > c.pinned_limit && threads > 1) --threads;
  while (need() > c.pinned_limit && c.chunk_size > (64u << 10))
    c.chunk_size = std::max<std::size_t>(64u << 10, (c.chunk_size / 2 + 4095) & ~std::size_t{4095});
  while (need() > c.pinned_limit && c.staging_depth > 1) --c.staging_depth;
  c.threads = threads;
  c.inline_lanes = threads;
  if (threads != asked_threads || c.chunk_size != asked.chunk_size || c.staging_depth != asked.staging_depth)
    HIPFILE_LOG(Info, "pinned memory limit %zu KiB: engine uses %u threads, %zu KiB chunks, depth %u (asked %u, %zu KiB, %u)",
                c.pinned_limit >> 10, threads, c.chunk_size >> 10, c.staging_depth, asked_threads,
                asked.chunk_size >> 10, asked.staging_depth);
  return c;
}

struct Engine::Job {
  Request req;
  off_t chunk = 0;                 // chunk size for this job
  off_t end = 0;                   // req.offset + req.size
  std::atomic<off_t> next{0};      // next chunk index to claim
  off_t last = 0;                  // last chunk index
  std::atomic<bool> failed{false};
  // A lane could not confirm that its copies finished: they may still read the mapping.
  std::atomic<bool> device_in_doubt{false};
  const FileMapping* mapping = nullptr;  // set: read through pinned page-cache pages
  off_t prefetch_ahead = 0;        // cold buffered read: chunks advised (WILLNEED) ahead of the claims
  bool one_chunk = false;          // the whole request is one chunk

  std::mutex mu;
  std::condition_variable done_cv;
  Status error;
  off_t eof;                       // lowest file offset where a read came up short
  off_t lost;                      // lowest start of a claimed chunk that did not complete
  int participants = 0;
  int finished = 0;

  // The file range of chunk k, clipped to the request. The last chunk ends at `end`, so no
  // product passes end (a request may end at the largest file offset).
  std::pair<off_t, off_t> range(off_t k) const noexcept {
    return {std::max(req.offset, k * chunk), k >= last ? end : (k + 1) * chunk};
  }
  // End of the chunks claimed so far: every chunk past it is untouched.
  off_t claimed_end() const noexcept {
    const off_t n = next.load(std::memory_order_relaxed);
    return n > last ? end : std::max(req.offset, n * chunk);
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
    if (++finished == participants) done_cv.notify_all();
  }
};

struct Engine::Worker {
  std::thread thread;
  std::map<int, std::unique_ptr<Lane>> lanes;  // per device, created on first use
};

Engine::Engine(const Config& config)
    : config_(config),
      chunk_(config_.chunk_size),
      slot_bytes_(config_.chunk_size + kAlignSlack),
      inline_chunk_(inline_chunk(config_)),
      inline_lanes_(std::max(1u, config_.staging_depth), inline_chunk_ + kAlignSlack, config_.inline_lanes),
      ordered_inline_lanes_(std::max(1u, config_.staging_depth), inline_chunk_ + kAlignSlack, config_.inline_lanes,
                            true) {}

namespace {
std::atomic<void (*)()> destroyed_hook{nullptr};
}  // namespace

void on_engine_destroyed_for_test(void (*hook)()) noexcept { destroyed_hook.store(hook); }

Engine::~Engine() {
  if (auto hook = destroyed_hook.load()) hook();
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
    for (auto& [device, lane] : w->lanes) release_lane(std::move(lane));
  }
  inline_lanes_.clear();
  ordered_inline_lanes_.clear();
}

void Engine::start_workers() {
  unsigned n = config_.effective_threads();
  workers_.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    workers_.push_back(std::make_unique<Worker>());
    Worker* w = workers_.back().get();
    try {
      w->thread = std::thread([this, w] { worker_main(*w); });
    } catch (...) {
      workers_.pop_back();  // fewer workers; none at all is the caller's error (call_once retries)
      if (workers_.empty()) throw;
      break;
    }
  }
}

void Engine::worker_main(Worker& w) {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    Lane* lane = nullptr;
    if (job->req.device >= 0) {
      Status st;
      try {
        lane = worker_lane(w, job->req.device, st);
      } catch (...) {  // bad_alloc making the lane: this request fails, the worker lives on
        st = Status::of(hipFileInternalError);
      }
      if (!lane) job->fail(st);
    }
    if (!job->failed) run(*job, lane);
    job->participant_done();
  }
}

// A request's fair share of the workers: all of them on an idle engine, workers / (requests in
// flight + 1) on a busy one (many callers, futures, batch). The share is cut into chunks so that
// each participant has `depth` of them, and the read of one overlaps the copy of the last;
// finer pieces only add copies and queue entries for workers that are taken anyway. Measured
// against spreading every request over every worker in bench/RESULTS.md ("How a request is
// split"): twice the rate of many mid-sized requests in flight, the other figures kept.
std::ptrdiff_t Engine::fair_share() const noexcept {
  const auto workers = static_cast<std::ptrdiff_t>(workers_.size());
  return std::max<std::ptrdiff_t>(1, workers / (jobs_.load(std::memory_order_relaxed) + 1));
}

off_t Engine::parallel_chunk(std::size_t size, std::ptrdiff_t share) const noexcept {
  const auto n = static_cast<std::size_t>(share);
  const std::size_t per_participant = (size + n - 1) / n / std::max(1u, config_.staging_depth);
  return static_cast<off_t>(std::clamp<std::size_t>((per_participant + 65535) & ~std::size_t{65535},
                                                    std::min(kMinParallelChunk, chunk_), chunk_));
}

Lane* Engine::worker_lane(Worker& w, int device, Status& st) {
  auto it = w.lanes.find(device);
  if (it != w.lanes.end() && !it->second->poisoned()) return it->second.get();
  if (it != w.lanes.end()) {
    release_lane(std::move(it->second));  // its memory may still be in use: replaced, not reused
    w.lanes.erase(it);
  }
  std::unique_ptr<Lane> lane =
      Lane::create(device, std::max(1u, config_.staging_depth), slot_bytes_, st, config_.blocking_wait);
  if (!lane) return nullptr;
  // Worker threads belong to the library: leave them on the device they serve most recently.
  (void)hipSetDevice(device);
  return w.lanes.emplace(device, std::move(lane)).first->second.get();
}

IoResult Engine::execute(const Request& req) {
  IoResult result;
  if (req.size == 0) return result;

  auto job = std::make_shared<Job>();
  job->req = req;
  job->end = req.offset + static_cast<off_t>(req.size);
  job->eof = job->end;
  job->lost = job->end;

  const bool inline_run = req.size <= config_.inline_threshold;
  off_t chunk = static_cast<off_t>(inline_run ? inline_chunk_ : chunk_);
  std::ptrdiff_t share = 1;
  if (!inline_run) {
    std::call_once(started_, [this] { start_workers(); });
    share = fair_share();
    chunk = parallel_chunk(req.size, share);
  }
  FileMapping mapping;  // outlives every participant: execute() waits for them below
  // The mapped path wins where the engine has few workers, whose CPU copies bound the staged
  // path; with many, pinning (which serialises in the GPU driver and stalls the stagers' HIP
  // calls) loses. Measured on H200s, 8 GiB hot: 1 worker 6.2 GB/s staged vs 21.6 mapped; 16
  // workers 46.5 staged vs 22.2 with one of them mapping.
  if (!inline_run && req.dir == Direction::Read && req.device >= 0 && config_.mapped_reads &&
      config_.map_workers > 0 && workers_.size() <= config_.map_max_threads &&
      req.size >= config_.map_threshold && (!req.file->use_direct || config_.direct_reads_from_cache) &&
      !req.file->mapped_failed.load(std::memory_order_relaxed) &&
      mapping.map_if_resident(req.file->buffered_fd, req.offset, job->end))
    job->mapping = &mapping;
  job->chunk = chunk;
  job->next = req.offset / chunk;
  job->last = (job->end - 1) / chunk;
  if (!inline_run && req.dir == Direction::Read && !job->mapping && !req.file->use_direct &&
      !resident(req.file->buffered_fd, req.offset)) {
    job->prefetch_ahead = std::max<off_t>(1, kPrefetchBytes / chunk);
    const off_t window = job->prefetch_ahead * chunk;
    advise(req.file->buffered_fd, req.offset, job->end - req.offset <= window ? job->end : req.offset + window);
  }
  const off_t nchunks = job->last - job->next.load() + 1;
  job->one_chunk = nchunks == 1;

  if (inline_run) {
    // Sync requests take a lane whose blocking stream follows the NULL stream by itself: on small
    // requests a host-side hipStreamSynchronize(NULL) costs as much as the copy (4 KiB IOPS).
    LanePool& pool = req.after_null_stream ? ordered_inline_lanes_ : inline_lanes_;
    job->participants = 1;
    std::unique_ptr<Lane> lane;
    if (req.device >= 0) {
      Status st;
      lane = pool.acquire(req.device, st);
      if (!lane) job->fail(st);
    }
    if (!job->failed) {
      gpu::DeviceGuard guard(req.device);
      run(*job, lane.get());
    }
    pool.release(std::move(lane));
  } else {
    if (req.after_null_stream && req.device >= 0) {
      // The workers' streams are non-blocking: wait for the NULL stream here.
      gpu::DeviceGuard on(req.device);
      hipError_t e = on.status() == hipSuccess ? hipStreamSynchronize(nullptr) : on.status();
      if (e != hipSuccess) {
        result.status = Status::of_hip(e);
        return result;
      }
    }
    int n = static_cast<int>(std::min<off_t>(nchunks, static_cast<off_t>(share)));
    job->participants = n;
    jobs_.fetch_add(1, std::memory_order_relaxed);
    // All or nothing: the entries are made first (this may throw, and then no worker has the job),
    // and handed over in one step that cannot fail. Once a worker has it, this call waits for it:
    // the mapping and the file lease must outlive every participant.
    std::list<std::shared_ptr<Job>> entries(static_cast<std::size_t>(n), job);
    {
      std::lock_guard lock(mu_);
      queue_.splice(queue_.end(), entries);
    }
    if (n == 1) wake_.notify_one(); else wake_.notify_all();
    std::unique_lock lock(job->mu);
    job->done_cv.wait(lock, [&] { return job->finished == job->participants; });
    jobs_.fetch_sub(1, std::memory_order_relaxed);
  }
  // A copy the runtime could not confirm as finished may still read the mapped pages.
  if (job->device_in_doubt) mapping.abandon();

  // POSIX's convention: a request that moved a contiguous prefix before failing returns that
  // prefix; only one that moved nothing returns the error.
  std::lock_guard lock(job->mu);
  const off_t moved = job->moved_end() - req.offset;
  if (!job->error.ok() && moved == 0) {
    result.status = job->error;
    return result;
  }
  if (!job->error.ok())
    HIPFILE_LOG(Debug, "%s at offset %lld failed after %lld of %zu bytes: the prefix is returned",
                req.dir == Direction::Read ? "read" : "write", static_cast<long long>(req.offset),
                static_cast<long long>(moved), req.size);
  result.bytes = static_cast<ssize_t>(moved);
  return result;
}

void Engine::run(Job& job, Lane* lane) noexcept {
  // Nothing may escape a worker (std::terminate) or leave copies running behind a caller that
  // returned: an exception fails the request from its first byte, after the lane is drained.
  try {
    run_unguarded(job, lane);
  } catch (...) {
    if (lane) (void)lane->drain();
    job.fail(Status::of(hipFileInternalError), job.req.offset);
  }
  if (lane && lane->poisoned()) job.device_in_doubt = true;
}

void Engine::run_unguarded(Job& job, Lane* lane) {
  if (job.req.device < 0) return run_host(job);
  if (job.req.dir == Direction::Read) {
    // Pinning page-cache pages serialises inside the GPU driver (two H200 runs: one pinning
    // thread 22.9 GB/s, sixteen 16.6), so only map_workers threads map; the rest stage.
    if (job.mapping && map_active_.fetch_add(1) < static_cast<int>(config_.map_workers)) {
      run_mapped_read(job, *lane);
      map_active_.fetch_sub(1);
      return;
    }
    if (job.mapping) map_active_.fetch_sub(1);
    return run_read(job, *lane);
  }
  return run_write(job, *lane);
}

namespace {

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
// (fewer only at end of file) or -errno.
ssize_t read_to_stage(File& f, std::byte* stage, std::size_t capacity, off_t a, off_t b, off_t& skew,
                      bool from_cache) {
  skew = 0;
  const off_t len = b - a;
  // A range within one block of the largest offset cannot be widened: it is read buffered.
  if (b <= kMaxOffset - f.dio_align && read_direct(f, a, b, from_cache)) {
    const off_t al = f.dio_align;
    const off_t aa = align_down(a, al), bb = align_up(b, al);
    if (static_cast<std::size_t>(bb - aa) <= capacity) {
      ssize_t n = sys::pread_full(f.direct_fd, stage, static_cast<std::size_t>(bb - aa), aa);
      if (n >= 0) {
        skew = a - aa;
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
// are aligned, buffered otherwise. Returns bytes or -errno.
ssize_t write_range(File& f, const std::byte* src, off_t a, off_t b) {
  const off_t len = b - a;
  if (f.use_direct && f.direct_ok.load(std::memory_order_relaxed) && a % f.dio_align == 0 &&
      len % f.dio_align == 0 && reinterpret_cast<std::uintptr_t>(src) % f.mem_align == 0) {
    ssize_t n = sys::pwrite_full(f.direct_fd, src, static_cast<std::size_t>(len), a);
    if (n != -EINVAL) return n;
    f.direct_ok = false;
    HIPFILE_LOG(Info, "O_DIRECT write refused (EINVAL) at offset %lld: this file continues buffered", static_cast<long long>(a));
  }
  return sys::pwrite_full(f.buffered_fd, src, static_cast<std::size_t>(len), a);
}

}  // namespace

void Engine::run_host(Job& job) {
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
      if (aligned && read_direct(f, a, b, config_.direct_reads_from_cache))
        n = sys::pread_full(f.direct_fd, mem, static_cast<std::size_t>(b - a), a);
      if (n == -EINVAL) n = sys::pread_full(f.buffered_fd, mem, static_cast<std::size_t>(b - a), a);
      if (n < 0) return job.fail(Status::of_errno(static_cast<int>(-n)), a);
      if (n < b - a) job.short_at(a + n);
    } else {
      ssize_t n = write_range(f, mem, a, b);
      if (n < 0) return job.fail(Status::of_errno(static_cast<int>(-n)), a);
    }
  }
}

// Reads [a, b) into the lane's next slot and queues its copy to the device. False when the job
// failed. `unconfirmed` is the lowest file offset whose copy on this lane is not known to have
// finished: a HIP failure puts everything from there in doubt.
bool Engine::stage_piece(Job& job, Lane& lane, off_t a, off_t b, off_t unconfirmed, bool track) {
  Slot& s = lane.next_slot();
  // Its previous copy must finish before the slot is refilled.
  if (hipError_t e = lane.free_slot(s); e != hipSuccess) {
    job.fail(Status::of_hip(e), unconfirmed);
    return false;
  }
  off_t skew = 0;
  ssize_t n = read_to_stage(*job.req.file, s.host, lane.slot_bytes(), a, b, skew, config_.direct_reads_from_cache);
  if (n < 0) {
    job.fail(Status::of_errno(static_cast<int>(-n)), a);
    return false;
  }
  if (n < b - a) job.short_at(a + n);
  if (n == 0) return true;
  hipError_t e = hipMemcpyAsync(job.req.mem + (a - job.req.offset), s.host + skew, static_cast<std::size_t>(n),
                                hipMemcpyHostToDevice, lane.stream());
  if (e == hipSuccess && track) e = hipEventRecord(s.done, lane.stream());
  if (e != hipSuccess) {
    job.fail(Status::of_hip(e), unconfirmed);
    return false;
  }
  s.busy = track;
  return true;
}

void Engine::run_read(Job& job, Lane& lane) {
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
    if (!stage_piece(job, lane, a, b, first, track)) break;
  }
  if (hipError_t e = lane.drain(); e != hipSuccess) job.fail(Status::of_hip(e), first);
}

void Engine::run_mapped_read(Job& job, Lane& lane) {
  constexpr unsigned kRegisterReadOnly = 0x8;  // hipHostRegisterReadOnly: HIP's and CUDA's value
  const FileMapping& map = *job.mapping;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  lane.restart_ring();
  const off_t per_step = std::max<off_t>(1, static_cast<off_t>(config_.map_chunk) / job.chunk);
  off_t k0, k1;
  off_t unconfirmed = -1;  // this thread's first range: its copies are confirmed only by the drain
  while (job.claim_run(per_step, k0, k1)) {
    const off_t a = job.range(k0).first;
    off_t b = job.range(k1).second;
    if (unconfirmed < 0) unconfirmed = a;
    if (b > map.end()) {  // the file ended (or shrank) before the request did
      job.short_at(std::max(a, map.end()));
      b = map.end();
      if (a >= b) continue;
    }
    const std::byte* src = map.at(a);
    auto* first = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(src) & ~(page - 1));
    auto last = (reinterpret_cast<std::uintptr_t>(src) + static_cast<std::uintptr_t>(b - a) + page - 1) & ~(page - 1);
    // Pin this range while the copies queued before it still run.
    hipError_t e = hipHostRegister(first, last - reinterpret_cast<std::uintptr_t>(first), kRegisterReadOnly);
    if (e != hipSuccess) {
      // The runtime cannot pin page-cache pages here: stage this chunk and every later read of
      // this file, and say so once.
      (void)hipGetLastError();
      if (!job.req.file->mapped_failed.exchange(true))
        HIPFILE_LOG(Info, "hipHostRegister of page-cache pages failed (%s): reads of this file are staged",
                    hipGetErrorName(e));
      if (hipError_t d = lane.drain(); d != hipSuccess) return job.fail(Status::of_hip(d), unconfirmed);
      unconfirmed = a;
      // The chunk takes the ring from its first slot; the mapped copies resume where they were.
      const unsigned resume = lane.restart_ring();
      const auto piece = static_cast<off_t>(lane.slot_bytes() - kAlignSlack);
      for (off_t p = a; p < b; p += piece)
        if (!stage_piece(job, lane, p, b - p <= piece ? b : p + piece, a)) break;
      lane.restart_ring(resume);
      if (hipError_t d = lane.drain(); d != hipSuccess) job.fail(Status::of_hip(d), a);
      if (job.failed) break;
      unconfirmed = -1;
      continue;
    }
    // The file may have shrunk since it was mapped: pages past its end are gone (touching them is
    // SIGBUS), so the copy stops at the size seen now that the range is pinned.
    if (const off_t size = current_size(job.req.file->buffered_fd); size < b) {
      job.short_at(std::max(a, size));
      b = std::max(a, size);
      if (a >= b) {
        (void)hipHostUnregister(first);
        continue;
      }
    }
    Slot& s = lane.next_slot();
    if (hipError_t f = lane.free_slot(s); f != hipSuccess) {
      (void)hipHostUnregister(first);
      job.fail(Status::of_hip(f), unconfirmed);
      break;
    }
    s.pinned_pages = first;
    e = hipMemcpyAsync(job.req.mem + (a - job.req.offset), src, static_cast<std::size_t>(b - a),
                       hipMemcpyHostToDevice, lane.stream());
    if (e == hipSuccess) e = hipEventRecord(s.done, lane.stream());
    if (e != hipSuccess) {
      job.fail(Status::of_hip(e), unconfirmed);
      break;
    }
    s.busy = true;
  }
  if (hipError_t e = lane.drain(); e != hipSuccess) job.fail(Status::of_hip(e), unconfirmed);
  clip_to_size_after_copies(job);
}

// A truncation that raced the copies may have zeroed the tail of the page at the new end before
// a copy read it (the size check above came first), so what lies past the size seen now that the
// copies have finished is not reported. A truncation after this check came after the copies.
void Engine::clip_to_size_after_copies(Job& job) noexcept {
  struct stat st {};
  if (::fstat(job.req.file->buffered_fd, &st) == 0 && st.st_size < job.end)
    job.short_at(std::max(job.req.offset, static_cast<off_t>(st.st_size)));
}

void Engine::run_write(Job& job, Lane& lane) {
  File& f = *job.req.file;
  struct Pending {
    Slot* slot;
    off_t a, b;
  };
  std::deque<Pending> pending;
  lane.restart_ring();
  bool more = true;
  for (;;) {
    // Keep up to `depth` device-to-host copies queued ahead of the writes.
    while (more && pending.size() < lane.depth()) {
      off_t k;
      if (!job.claim(k)) {
        more = false;
        break;
      }
      Slot& s = lane.next_slot();
      auto [a, b] = job.range(k);
      hipError_t e = hipMemcpyAsync(s.host, job.req.mem + (a - job.req.offset),
                                    static_cast<std::size_t>(b - a), hipMemcpyDeviceToHost, lane.stream());
      if (e == hipSuccess) e = hipEventRecord(s.done, lane.stream());
      if (e != hipSuccess) {
        job.fail(Status::of_hip(e), a);
        more = false;
        break;
      }
      pending.push_back({&s, a, b});
    }
    if (pending.empty()) break;
    Pending p = pending.front();
    pending.pop_front();
    if (hipError_t e = hipEventSynchronize(p.slot->done); e != hipSuccess) {
      job.fail(Status::of_hip(e), p.a);
      break;
    }
    // Once a failure is known no further chunk is written: the file changes as little as
    // possible past the prefix that will be reported.
    if (job.failed) {
      job.skipped(p.a);
      continue;
    }
    ssize_t n = write_range(f, p.slot->host, p.a, p.b);
    if (n < 0) job.fail(Status::of_errno(static_cast<int>(-n)), p.a);
  }
  // Every chunk written above had its copy confirmed by its event; what is still queued was
  // never written, and is at or past a chunk already marked lost.
  if (hipError_t e = lane.drain(); e != hipSuccess) job.fail(Status::of_hip(e));
}

}  // namespace hipfile::engine
