// SPDX-License-Identifier: MIT
// The engine's worker pool: threads started on the engine's first large request, each with a
// lane per device, taking part in the jobs handed to them; and the share of them one request
// gets. What a worker does with its part is the engine's (its mover choice, passed in).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/config.hpp"
#include "io/status.hpp"
#include "staging/lanes.hpp"

namespace hipfile::engine {

struct Job;

class WorkerPool {
 public:
  /// One thread's part of a job on its lane (null for CPU-accessible memory).
  using RunPart = std::function<void(Job& job, Lane* lane)>;

  /// `config` is the engine's and outlives the pool; `slot_bytes` sizes the workers' lanes.
  WorkerPool(const Config& config, std::size_t slot_bytes, RunPart run_part);
  ~WorkerPool() { stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Starts the threads the first time; throws when none could start (the next call retries).
  void start_once() { std::call_once(started_, [this] { start(); }); }
  /// Stops and joins the threads and releases their lanes; the pool takes no job after it.
  void stop() noexcept;

  std::size_t size() const noexcept { return workers_.size(); }
  /// Requests on the workers now (queued or running).
  std::ptrdiff_t busy() const noexcept { return jobs_.load(std::memory_order_relaxed); }
  /// A request's fair share of the workers: all of them on an idle pool, workers / (requests in
  /// flight + 1) on a busy one.
  std::ptrdiff_t fair_share() const noexcept;
  /// Hands `job` to job->participants workers and waits until they have finished it. All or
  /// nothing: a throw leaves no worker with the job.
  void run(const std::shared_ptr<Job>& job);

 private:
  struct Worker {
    std::thread thread;
    std::map<int, std::unique_ptr<Lane>> lanes;  // per device, created on first use
    int current_device = -1;  // the thread's current device as this worker last set it
  };

  void start();
  void worker_main(Worker& w);
  void linger() const noexcept;
  void await(Job& job) const;
  Lane* worker_lane(Worker& w, int device, Status& st, bool& made);

  const Config& config_;
  std::size_t slot_bytes_;
  RunPart run_part_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::list<std::shared_ptr<Job>> queue_;  // one entry per worker asked to take part
  std::atomic<std::size_t> queued_{0};      // queue_.size(), for lingering workers to read without mu_
  bool stopping_ = false;
  std::once_flag started_;
  std::atomic<std::ptrdiff_t> jobs_{0};  // requests on the workers now (queued or running)
  std::vector<std::unique_ptr<Worker>> workers_;
};

}  // namespace hipfile::engine
