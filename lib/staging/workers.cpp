// SPDX-License-Identifier: MIT
// The engine's worker pool: threads started on the first large request, each with a lane per
// device, taking part in the jobs queued to them; and the share of them one request gets.
#include "staging/workers.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "gpu/hip.hpp"
#include "staging/job.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

WorkerPool::WorkerPool(const Config& config, std::size_t slot_bytes, RunPart run_part)
    : config_(config), slot_bytes_(slot_bytes), run_part_(std::move(run_part)) {}

void WorkerPool::stop() noexcept {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) {
    if (w->thread.joinable()) w->thread.join();
    for (auto& [device, lane] : w->lanes) release_lane(std::move(lane));
  }
}

void WorkerPool::start() {
  sys::PhaseTimer timed(sys::Phase::ThreadStart);
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

void WorkerPool::worker_main(Worker& w) {
  // Polling workers sleep for microseconds between questions; the default 50 us of timer slack
  // would stretch every such sleep several times over.
  if (config_.wait == WaitMode::poll) (void)::prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    Lane* lane = nullptr;
    if (job->req.device >= 0) {
      Status st;
      try {
        bool made = false;
        lane = worker_lane(w, job->req.device, st, made);
        if (made) job->made_lanes.store(true, std::memory_order_relaxed);  // its time is no path's rate
      } catch (...) {  // bad_alloc making the lane: this request fails, the worker lives on
        st = Status::of(Error::InternalError);
      }
      if (!lane) job->fail(st);
    }
    if (!job->failed) run_part_(*job, lane);
    job->participant_done();
    job.reset();
    linger();
  }
}

namespace {

// How long a thread that expects work soon stays awake for it: a thread woken from a condition
// variable begins late once its core has gone idle, and that delay fell at the start and the end
// of every call (see bench/HISTORY.md, "Awake at both ends of a call").
constexpr auto kLinger = std::chrono::microseconds(200);
constexpr auto kAwaitAwake = std::chrono::milliseconds(4);

// Waiting awake yields the core rather than spinning on it: a caller or worker waiting awake
// must not keep a runnable worker off a core.
void relax() noexcept { std::this_thread::yield(); }

}  // namespace

// After its part of a job a worker watches the queue for a while before it sleeps, so that the
// next of back-to-back calls finds it awake. Not with HIPFILE_WAIT=block, which asks for no
// spinning.
void WorkerPool::linger() const noexcept {
  if (config_.wait == WaitMode::block) return;
  const auto until = std::chrono::steady_clock::now() + kLinger;
  while (queued_.load(std::memory_order_relaxed) == 0 && std::chrono::steady_clock::now() < until) relax();
}

// The caller sleeps until its job's reads are done (or it is finished); what is left then is the
// copies queued in the participants' slots, which it waits for awake, up to kAwaitAwake, so that
// its return does not wait for its core to wake up. Jobs other than staged reads, and
// HIPFILE_WAIT=block, sleep to the end.
void WorkerPool::await(Job& job) const {
  auto done = [&] { return job.finished.load(std::memory_order_acquire) == job.participants; };
  {
    std::unique_lock lock(job.mu);
    job.done_cv.wait(lock, [&] { return done() || job.finished_reads.load() == job.participants; });
  }
  if (config_.wait != WaitMode::block) {
    const auto until = std::chrono::steady_clock::now() + kAwaitAwake;
    while (!done() && std::chrono::steady_clock::now() < until) relax();
  }
  std::unique_lock lock(job.mu);
  job.done_cv.wait(lock, done);
}

// A request's fair share of the workers: all of them on an idle engine, workers / (requests in
// flight + 1) on a busy one (many callers, futures, batch). The share is cut into chunks so that
// each participant has `depth` of them, and the read of one overlaps the copy of the last;
// finer pieces only add copies and queue entries for workers that are taken anyway. Measured
// against spreading every request over every worker (bench/HISTORY.md, "Session of 2026-12-01,
// afternoon", part "How a request is split"): many mid-sized requests in flight gained most, and
// no other figure lost.
std::ptrdiff_t WorkerPool::fair_share() const noexcept {
  const auto workers = static_cast<std::ptrdiff_t>(workers_.size());
  return std::max<std::ptrdiff_t>(1, workers / (jobs_.load(std::memory_order_relaxed) + 1));
}

void WorkerPool::run(const std::shared_ptr<Job>& job) {
  const int n = job->participants;
  // All or nothing: the entries are made first (this may throw, and then no worker has the job
  // and it is not counted), and handed over in one step that cannot fail. Once a worker has it,
  // this call waits for it: the mapping and the file lease must outlive every participant.
  std::list<std::shared_ptr<Job>> entries(static_cast<std::size_t>(n), job);
  job->awaited = true;
  jobs_.fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard lock(mu_);
    queue_.splice(queue_.end(), entries);
    queued_.fetch_add(static_cast<std::size_t>(n), std::memory_order_relaxed);
  }
  if (n == 1) wake_.notify_one(); else wake_.notify_all();
  await(*job);
  jobs_.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

// Worker threads belong to the library: they stay on the device of the job they serve, so that
// what a job does in the current device's context (pinning page-cache pages on the mapped path)
// is done in its device's. Asked of the runtime only when the device changes.
void serve_device(int& current, int device) noexcept {
  if (current != device && gpu::set_device(device) == hipSuccess) current = device;
}

}  // namespace

Lane* WorkerPool::worker_lane(Worker& w, int device, Status& st, bool& made) {
  auto it = w.lanes.find(device);
  if (it != w.lanes.end() && !it->second->poisoned()) {
    serve_device(w.current_device, device);
    return it->second.get();
  }
  if (it != w.lanes.end()) {
    release_lane(std::move(it->second));  // its memory may still be in use: replaced, not reused
    w.lanes.erase(it);
  }
  std::unique_ptr<Lane> lane =
      Lane::create(device, std::max(1u, config_.staging_depth), slot_bytes_, st, config_.wait);
  if (!lane) return nullptr;
  made = true;
  w.current_device = -1;  // creating the lane may have switched devices (DeviceGuard)
  serve_device(w.current_device, device);
  return w.lanes.emplace(device, std::move(lane)).first->second.get();
}

}  // namespace hipfile::engine
