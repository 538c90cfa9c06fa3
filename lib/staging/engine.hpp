// SPDX-License-Identifier: MIT
// The staging engine: moves one request between a file and device or host memory.
//
// A request is cut into chunks at multiples of the chunk size in file-offset space (so every
// interior chunk is aligned for O_DIRECT). Chunks are claimed one at a time by the threads
// taking part: small requests run on the caller's thread, large ones on the worker pool. Each
// thread owns a lane per device (stream + pinned slots): while the copy of chunk k runs on the
// lane's stream, the thread already reads chunk k+1 into the next slot; writes mirror this.
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "io/backend.hpp"
#include "io/config.hpp"
#include "io/file.hpp"
#include "io/request.hpp"
#include "io/status.hpp"
#include "staging/lanes.hpp"
#include "staging/path_tuner.hpp"
#include "staging/workers.hpp"

namespace hipfile::engine {

struct Job;

/// The configuration an engine runs with: parallel_io=false makes every request inline, and the
/// pinned staging it may hold, (workers + one inline lane) x depth x slot x devices, is brought
/// under pinned_limit by fewer workers, then smaller chunks (not below 64 KiB), then depth 1.
Config shape_engine(Config asked);

/// Tests: `hook` runs at the start of every engine's destruction, on the destroying thread
/// (nullptr: none).
void on_engine_destroyed_for_test(void (*hook)()) noexcept;

class Engine final : public Backend {
 public:
  /// `config` as shape_engine returns it.
  explicit Engine(const Config& config);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Moves the whole request. Short only at end of file or, after a failure, the contiguous
  /// prefix that moved (POSIX: only a request that moved nothing returns the error).
  IoResult execute(const Request& req);

  /// Moves a request on CPU-accessible memory (`req.device < 0`) on the calling thread alone,
  /// with no worker, lane or HIP call: for threads that must progress whatever the GPU and the
  /// workers are doing (stream-ordered I/O, whose streams wait for them). Same result rules.
  IoResult execute_on_caller(const Request& req);

  /// As a backend, the engine serves every request: it is the compat path behind the fastpaths.
  bool serves(const Request&) const override { return true; }
  IoResult read(const Request& req) override { return execute(req); }
  IoResult write(const Request& req) override { return execute(req); }

 private:
  // engine.cpp: how a request is run.
  IoResult execute_inline(const Request& req);
  IoResult execute_parallel(const Request& req);
  bool maps(const Request& req) const noexcept;
  ReadPath read_path(const Request& req, std::ptrdiff_t share, PathTuner*& tuner, bool& trial) noexcept;
  PathTuner* tuner_for(const Request& req, std::ptrdiff_t share) noexcept;
  void learn(PathTuner& tuner, ReadPath chosen, Job& job, std::int64_t began_ns);
  void run_inline(Job& job);
  std::ptrdiff_t participants(const Job& job, ReadPath path, std::ptrdiff_t share) const noexcept;
  Status run_on_workers(const std::shared_ptr<Job>& job, std::ptrdiff_t share);
  off_t parallel_chunk(std::size_t size, std::ptrdiff_t share) const noexcept;
  // engine.cpp: one thread's part of a job, by the mover its memory and direction take.
  void run(Job& job, Lane* lane) noexcept;
  void run_unguarded(Job& job, Lane* lane);

  Config config_;
  std::size_t chunk_;
  std::size_t slot_bytes_;
  std::size_t inline_chunk_;       // chunk and slot size (less slack) of requests on callers' threads
  LanePool inline_lanes_;          // non-blocking streams: async and batch requests
  LanePool ordered_inline_lanes_;  // blocking streams: sync requests ordered after the NULL stream

  std::atomic<int> map_active_{0};  // workers on the mapped path now
  // The read path of mappable reads on an idle engine, per size class: under 128 MiB, 512 MiB,
  // 2 GiB, and larger (a call's fixed costs weigh differently in each).
  std::array<PathTuner, 4> tuners_;
  WorkerPool workers_;  // after what its threads use: destroyed (joined) before it
};

}  // namespace hipfile::engine
