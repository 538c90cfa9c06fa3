// SPDX-License-Identifier: MIT
// The driver instance (doc/architecture.md, "The driver instance"): what one driver open runs with. The
// configuration in force, the staging engine built from it on first use, the fastpath loaded at
// open, the executor of async and batch operations started at the first one. A request leases
// the current instance once (Driver::lease) and uses nothing else, so its configuration, engine
// and fastpath always agree. A setter makes a new instance for later requests; the driver keeps
// the old one until no request holds it and then tears it down on a setter's or the closing
// thread, outside the driver's locks (never on an I/O thread or in a host callback, where the
// engine's lanes freeing pinned memory could wait on the device).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "io/config.hpp"
#include "runtime/async_staging.hpp"
#include "runtime/executor.hpp"
#include "staging/engine.hpp"

namespace hipfile::fastpath {
class Fastpath;
}

namespace hipfile::engine {

class Instance {
 public:
  /// The first instance of an open. `asked` is the configuration as set (defaults <
  /// environment < parameters); the engine's shape is derived from it here.
  Instance(Config asked, std::shared_ptr<fastpath::Fastpath> fastpath);
  /// A setter's successor: `asked` edited from `before`'s. It shares `before`'s fastpath and
  /// executor, and its engine too when the engine's shape does not change.
  Instance(Config asked, const Instance& before);
  /// The instance of a forked child in place of `parent`, the parent's: the same
  /// configuration and fastpath, with an engine and an executor of its own (started on first
  /// use), since the parent's threads do not exist in the child. Touches no runtime.
  struct ForkedChild {};
  Instance(ForkedChild, const Instance& parent);
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  /// The configuration as set: what the parameter getters report and setters edit.
  const Config& asked() const noexcept { return asked_; }
  /// The configuration in force: `asked` with the engine's threads, chunk and depth brought
  /// under the pinned-memory limit. Requests, the engine and hipFileDriverGetProperties use it.
  const Config& config() const noexcept { return in_force_; }
  fastpath::Fastpath* fastpath() const noexcept { return fastpath_.get(); }
  /// The staging engine of this configuration, started on first use (a failed start throws
  /// and is tried again by the next request).
  Engine& engine();
  /// The executor of this open's async and batch operations, started on first use (a failed
  /// start throws and is tried again by the next submission). An operation holds a lease on the
  /// instance until it has finished, so the executor outlives every operation posted to it.
  Executor& executor();
  /// Stream-ordered I/O's own threads and pinned staging, started on first use. Its threads
  /// only move file bytes to or from host memory: the host functions on the callers' streams
  /// wait for them, so nothing they run may wait for the GPU, the engine's workers or batch
  /// I/O (which waits for the NULL stream, which may wait for those very streams).
  Executor& stream_executor();
  StagingSlots& stream_staging();

 private:
  // The engine and its start, shared by the instances of one engine shape.
  // `ready` is the built engine, published once: every request asks for it, and std::call_once
  // costs a mutex round trip per call where an acquire load suffices.
  struct EngineCell {
    std::once_flag started;
    std::unique_ptr<Engine> engine;
    std::atomic<Engine*> ready{nullptr};
    EngineCell() = default;
    EngineCell(const EngineCell&) = delete;
    EngineCell& operator=(const EngineCell&) = delete;
  };

  struct ExecutorCell {
    std::once_flag started;
    std::unique_ptr<Executor> executor;
  };

  struct StreamIoCell {
    std::once_flag started;
    std::unique_ptr<StagingSlots> staging;  // freed after the threads stop
    std::unique_ptr<Executor> executor;
  };
  StreamIoCell& stream_io();

  Config asked_;
  Config in_force_;
  std::shared_ptr<fastpath::Fastpath> fastpath_;
  std::shared_ptr<EngineCell> engine_;
  std::shared_ptr<StreamIoCell> stream_io_;
  std::shared_ptr<ExecutorCell> executor_;  // last: its threads stop first
};

}  // namespace hipfile::engine
