// SPDX-License-Identifier: MIT
// Planning and running one request: the engine's shape under the pinned limit, the chunking and
// the share of the workers a request gets, mapped or staged, which mover runs each thread's
// part, inline on a pooled lane or on the workers, and what the request returns.
#include "staging/engine.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>

#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "staging/job.hpp"
#include "staging/mapped.hpp"
#include "staging/movers.hpp"
#include "staging/trace.hpp"
#include "sys/log.hpp"
#include "sys/page_cache.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

namespace {

std::size_t inline_chunk(const Config& c) {
  // Requests run on callers' threads are at most inline_threshold: their slots need no more
  // (whole pages, at least one), and never more than a worker's chunk.
  const std::size_t wanted = std::max<std::size_t>(4096, (std::min(c.inline_threshold, c.chunk_size) + 4095) & ~std::size_t{4095});
  return std::min(wanted, c.chunk_size);
}

// The piece an inline read into device memory is cut into: with the lane's slots the read of
// one piece overlaps the copy of the one before, which a single pread-then-copy cannot. Pieces
// much smaller than 128 KiB lose more to their extra copies than the overlap gains (see
// bench/HISTORY.md, "Inline pieces"). Quarters, none below kMinInlinePiece; a request no larger
// than that keeps the whole inline chunk (so a small read rarely straddles a boundary and pays
// two copies).
constexpr std::size_t kMinInlinePiece = 128u << 10;

off_t inline_piece(const Request& req, std::size_t inline_chunk) {
  if (req.device < 0 || req.dir != Direction::Read || req.size <= kMinInlinePiece)
    return static_cast<off_t>(inline_chunk);
  const std::size_t quarter = (req.size / 4 + 4095) & ~std::size_t{4095};
  return static_cast<off_t>(std::min(inline_chunk, std::max(kMinInlinePiece, quarter)));
}

// A cold buffered read (sys::read_looks_cold) asks the disk for its first prefetch window
// (Config::prefetch_window) now; Job::prefetch_for keeps the window ahead of the claims. The
// workers' own preads alone keep too little in flight to match one large pread's readahead.
void prefetch_if_cold(Job& job, std::size_t window_bytes) noexcept {
  const Request& req = job.req;
  if (window_bytes == 0 || req.dir != Direction::Read || job.mapping || req.file->use_direct) return;
  const off_t window = std::max<off_t>(1, static_cast<off_t>(window_bytes) / job.chunk) * job.chunk;
  if (!sys::read_looks_cold(req.file->buffered_fd, req.offset, job.end, window)) return;
  job.prefetch_ahead = window / job.chunk;
  advise(req.file->buffered_fd, req.offset, job.end - req.offset <= window ? job.end : req.offset + window);
}

// POSIX's convention: a request that moved a contiguous prefix before failing returns that
// prefix; only one that moved nothing returns the error. Read by the only thread that moved the
// job, or under job.mu (result_of).
IoResult outcome(const Job& job) {
  IoResult result;
  const Request& req = job.req;
  const off_t moved = job.moved_end() - req.offset;
  if (!job.error.ok() && moved == 0) {
    result.status = job.error;
    return result;
  }
  if (!job.error.ok())
    HIPFILE_LOG(Debug, "%s at offset %lld failed after %lld of %zu bytes: the prefix is returned",
                req.dir == Direction::Read ? "read" : "write", static_cast<long long>(req.offset),
                static_cast<long long>(moved), req.size);
  result.bytes = static_cast<ssize_t>(moved);
  return result;
}

// The outcome of a job its workers have finished.
IoResult result_of(Job& job) {
  std::lock_guard lock(job.mu);
  return outcome(job);
}

}  // namespace

Config shape_engine(Config c) {
  if (!c.parallel_io) c.inline_threshold = SIZE_MAX;
  int ndev = 0;
  if (gpu::device_count(ndev) != hipSuccess || ndev < 1) ndev = 1;
  unsigned threads = c.effective_threads();
  // Callers' threads are not the workers: with automatic workers, each pool has a lane per core
  // (up to 16) for the small requests run on them; set workers set the lanes too.
  unsigned lanes = std::max(threads, c.effective_caller_lanes());
  // Per device: each worker's lane, and `lanes` in each pool for callers' threads.
  auto need = [&] {
    const std::size_t lane = c.chunk_size + kAlignSlack, inline_lane = inline_chunk(c) + kAlignSlack;
    return (static_cast<std::size_t>(threads) * lane + static_cast<std::size_t>(lanes) * 2 * inline_lane) *
           c.staging_depth * static_cast<std::size_t>(ndev);
  };
  const Config asked = c;
  const unsigned asked_threads = threads;
  while (need() > c.pinned_limit && lanes > threads) --lanes;
  while (need() > c.pinned_limit && threads > 1) lanes = --threads;
  while (need() > c.pinned_limit && c.chunk_size > (64u << 10))
    c.chunk_size = std::max<std::size_t>(64u << 10, (c.chunk_size / 2 + 4095) & ~std::size_t{4095});
  while (need() > c.pinned_limit && c.staging_depth > 1) --c.staging_depth;
  c.threads = threads;
  c.inline_lanes = lanes;
  if (threads != asked_threads || c.chunk_size != asked.chunk_size || c.staging_depth != asked.staging_depth)
    HIPFILE_LOG(Info, "pinned memory limit %zu KiB: engine uses %u threads, %zu KiB chunks, depth %u (asked %u, %zu KiB, %u)",
                c.pinned_limit >> 10, threads, c.chunk_size >> 10, c.staging_depth, asked_threads,
                asked.chunk_size >> 10, asked.staging_depth);
  return c;
}

Engine::Engine(const Config& config)
    : config_(config),
      chunk_(config_.chunk_size),
      slot_bytes_(config_.chunk_size + kAlignSlack),
      inline_chunk_(inline_chunk(config_)),
      inline_lanes_(std::max(1u, config_.staging_depth), inline_chunk_ + kAlignSlack, config_.inline_lanes),
      ordered_inline_lanes_(std::max(1u, config_.staging_depth), inline_chunk_ + kAlignSlack, config_.inline_lanes,
                            true),
      workers_(config_, slot_bytes_, [this](Job& job, Lane* lane) { run(job, lane); }) {
  // The fixed policy's path first, then the others (tune_read_path). With as many mapping
  // workers as workers, "beside" and "alone" are the same; map_alone rules stagers out beside a
  // mapping worker.
  ReadPath paths[3];
  std::size_t n = 0;
  paths[n++] = config_.map_alone ? ReadPath::mapped_alone : ReadPath::mapped_shared;
  if (config_.tune_read_path) {
    if (!config_.map_alone && config_.effective_threads() > config_.map_workers) paths[n++] = ReadPath::mapped_alone;
    paths[n++] = ReadPath::staged;
  }
  for (PathTuner& t : tuners_) t.set_candidates(paths, n);
}

namespace {
constexpr std::size_t kMinParallelChunk = 256u << 10;
std::atomic<void (*)()> destroyed_hook{nullptr};
}  // namespace

void on_engine_destroyed_for_test(void (*hook)()) noexcept { destroyed_hook.store(hook); }

Engine::~Engine() {
  if (auto hook = destroyed_hook.load()) hook();
  workers_.stop();
  inline_lanes_.clear();
  ordered_inline_lanes_.clear();
}


off_t Engine::parallel_chunk(std::size_t size, std::ptrdiff_t share) const noexcept {
  const auto n = static_cast<std::size_t>(share);
  const std::size_t per_participant = (size + n - 1) / n / std::max(1u, config_.staging_depth);
  return static_cast<off_t>(std::clamp<std::size_t>((per_participant + 65535) & ~std::size_t{65535},
                                                    std::min(kMinParallelChunk, chunk_), chunk_));
}

void Engine::run(Job& job, Lane* lane) noexcept {
  // Nothing may escape a worker (std::terminate) or leave copies running behind a caller that
  // returned: an exception fails the request from its first byte, after the lane is drained.
  try {
    run_unguarded(job, lane);
  } catch (...) {
    if (lane) (void)lane->drain();
    job.fail(Status::of(Error::InternalError), job.req.offset);
  }
  if (lane && lane->poisoned()) job.device_in_doubt = true;
}

void Engine::run_unguarded(Job& job, Lane* lane) {
  if (job.req.device < 0) return run_host(job, config_);
  if (job.req.dir == Direction::Read) {
    // Pinning page-cache pages serialises inside the GPU driver (one pinning thread outran
    // sixteen: db3beb5, see bench/HISTORY.md, "Earlier figures (for the record)"), so only
    // map_workers threads map; the rest stage.
    if (job.mapping) {
      // Counted while this thread maps, given back however it leaves (an exception included).
      struct Mapping {
        std::atomic<int>& active;
        ~Mapping() { active.fetch_sub(1); }
      } counted{map_active_};
      if (map_active_.fetch_add(1) < static_cast<int>(config_.map_workers)) return run_mapped_read(job, *lane, config_);
    }
    return run_read(job, *lane, config_);
  }
  return run_write(job, *lane);
}

IoResult Engine::execute(const Request& req) {
  if (req.size == 0) return {};
  return req.size <= config_.inline_threshold ? execute_inline(req) : execute_parallel(req);
}

IoResult Engine::execute_on_caller(const Request& req) {
  if (req.size == 0) return {};
  Job job(req, static_cast<off_t>(chunk_));
  job.participants = 1;
  run(job, nullptr);  // device < 0: the host mover, which makes no HIP call
  return outcome(job);
}

// On the caller's thread, with a Job of its own: no allocation, no worker, no mapping (the
// per-call cost of a 4 KiB read is mostly such bookkeeping; bench/HISTORY.md, "Session of
// 2026-12-02, night").
IoResult Engine::execute_inline(const Request& req) {
  const std::int64_t begun = trace::on() ? trace::now() : 0;
  Job job(req, inline_piece(req, inline_chunk_));
  std::optional<trace::Clock> clock;
  if (begun != 0) {
    job.trace_id = trace::next_request();
    if (req.device >= 0) job.trace_clock = &clock.emplace(req.device);
  }
  run_inline(job);
  if (begun != 0) trace::request(job.trace_id, req.offset, req.size, job.participants, begun, trace::now());
  return outcome(job);  // this thread alone moved it
}

IoResult Engine::execute_parallel(const Request& req) {
  const std::int64_t begun = trace::on() ? trace::now() : 0;
  workers_.start_once();
  const std::ptrdiff_t share = workers_.fair_share();
  auto job = std::make_shared<Job>(req, parallel_chunk(req.size, share));
  std::optional<trace::Clock> clock;  // outlives every participant, like the mapping below
  if (begun != 0) {
    job->trace_id = trace::next_request();
    if (req.device >= 0) job->trace_clock = &clock.emplace(req.device);
  }
  PathTuner* tuner = nullptr;
  bool trial = false;
  const ReadPath path = read_path(req, share, tuner, trial);
  const std::int64_t tuned_from = tuner ? trace::now() : 0;  // trace::now: the steady clock, traced or not
  FileMapping mapping;  // outlives every participant: run_on_workers waits for them
  if (path != ReadPath::staged && mapping.map_if_resident(req.file->buffered_fd, req.offset, job->end))
    job->mapping = &mapping;
  // Only reads of cached data tell the paths apart: a cold one measures the disk.
  const bool measures = tuner && (job->mapping || (path == ReadPath::staged &&
                                                   sys::range_cached(req.file->buffered_fd, req.offset, req.size)));
  prefetch_if_cold(*job, config_.prefetch_window);
  // Smaller first pieces start the first copies sooner: until then the link idles
  // (first_chunk; bench/HISTORY.md, "The per-call bubble").
  if (!job->mapping && req.dir == Direction::Read && config_.first_chunk > 0)
    job->ramp_up(static_cast<off_t>(config_.first_chunk), static_cast<int>(share));
  if (Status st = run_on_workers(job, participants(*job, path, share)); !st.ok()) {
    IoResult result;
    result.status = st;
    return result;
  }
  // A copy the runtime could not confirm as finished may still read the mapped pages.
  if (job->device_in_doubt) mapping.abandon();
  if (measures) learn(*tuner, path, *job, tuned_from);
  if (trial) sys::add_phase(sys::Phase::PathTrials, static_cast<std::uint64_t>(trace::now() - tuned_from));
  if (begun != 0) trace::request(job->trace_id, req.offset, req.size, job->participants, begun, trace::now());
  return result_of(*job);
}

// The mapped path wins where the engine has few workers, whose CPU copies bound the staged
// path; with many, pinning (which serialises in the GPU driver and stalls the stagers' HIP
// calls) loses (see bench/HISTORY.md, "How the defaults were chosen", and for one mapping worker
// beside fifteen stagers "Earlier figures (for the record)").
bool Engine::maps(const Request& req) const noexcept {
  return req.dir == Direction::Read && req.device >= 0 && config_.mapped_reads && config_.map_workers > 0 &&
         workers_.size() <= config_.map_max_threads && req.size >= config_.map_threshold &&
         (!req.file->use_direct || config_.direct_reads_from_cache) &&
         !req.file->mapped_failed.load(std::memory_order_relaxed);
}

// Staged unless the read may map; among the paths its tuner has, the tuner's choice.
ReadPath Engine::read_path(const Request& req, std::ptrdiff_t share, PathTuner*& tuner, bool& trial) noexcept {
  tuner = nullptr;
  if (!maps(req)) return ReadPath::staged;
  tuner = tuner_for(req, share);
  if (tuner) return tuner->choose(&trial);
  return config_.map_alone ? ReadPath::mapped_alone : ReadPath::mapped_shared;
}

// The tuner of a mappable read, when its choice is measurable: the engine idle (the read has
// every worker), and the configuration leaving a choice (tune_read_path).
PathTuner* Engine::tuner_for(const Request& req, std::ptrdiff_t share) noexcept {
  if (share != static_cast<std::ptrdiff_t>(workers_.size())) return nullptr;
  std::size_t k = 0;
  for (std::size_t limit = 128u << 20; k + 1 < tuners_.size() && req.size >= limit; limit <<= 2) ++k;
  return tuners_[k].tuning() ? &tuners_[k] : nullptr;
}

// What a tuned read of cached data measured, if it measured its path: the whole request moved,
// on an engine that stayed idle, with no participant making its lane (pinned allocations cost
// more than the read) and the mapping intact.
void Engine::learn(PathTuner& tuner, ReadPath chosen, Job& job, std::int64_t began_ns) {
  const std::int64_t took = trace::now() - began_ns;
  const IoResult r = result_of(job);
  if (r.bytes != static_cast<ssize_t>(job.req.size) || job.made_lanes.load(std::memory_order_relaxed) ||
      job.device_in_doubt.load(std::memory_order_relaxed) || workers_.busy() != 0 ||
      job.req.file->mapped_failed.load(std::memory_order_relaxed))
    return;
  if (tuner.record(chosen, job.req.size, took))
    HIPFILE_LOG(Info, "reads of %zu MiB on %zu workers: %s is now the fastest path (%.2f GB/s; mapped %.2f, "
                "mapped alone %.2f, staged %.2f)",
                job.req.size >> 20, workers_.size(), path_name(chosen), tuner.rate(chosen),
                tuner.rate(ReadPath::mapped_shared), tuner.rate(ReadPath::mapped_alone), tuner.rate(ReadPath::staged));
}

// A read on the mapping workers alone leaves the others idle: on some machines stagers beside a
// mapping worker stall it (their HIP calls wait on the driver's pinning), on others they add to
// it (bench/HISTORY.md, "Session of 2026-12-03").
std::ptrdiff_t Engine::participants(const Job& job, ReadPath path, std::ptrdiff_t share) const noexcept {
  if (!job.mapping || path != ReadPath::mapped_alone) return share;
  return std::min<std::ptrdiff_t>(share, std::max(1u, config_.map_workers));
}

void Engine::run_inline(Job& job) {
  // Sync requests take a lane whose blocking stream follows the NULL stream by itself: on small
  // requests a host-side hipStreamSynchronize(NULL) costs as much as the copy (see
  // bench/HISTORY.md, "What changed to get here (this session)").
  LanePool& pool = job.req.after_null_stream ? ordered_inline_lanes_ : inline_lanes_;
  job.participants = 1;
  std::unique_ptr<Lane> lane;
  if (job.req.device >= 0) {
    Status st;
    lane = pool.acquire(job.req.device, st);
    if (!lane) job.fail(st);
  }
  if (!job.failed) {
    gpu::DeviceGuard guard(job.req.device);
    run(job, lane.get());
  }
  pool.release(std::move(lane));
}

Status Engine::run_on_workers(const std::shared_ptr<Job>& job, std::ptrdiff_t share) {
  if (job->req.after_null_stream && job->req.device >= 0) {
    // The workers' streams are non-blocking: wait for the NULL stream here.
    if (hipError_t e = gpu::sync_null_stream(job->req.device); e != hipSuccess) return Status::of_hip(e);
  }
  int n = static_cast<int>(std::min<off_t>(job->chunks(), static_cast<off_t>(share)));
  job->participants = n;
  workers_.run(job);
  return Status::success();
}

}  // namespace hipfile::engine
