// SPDX-License-Identifier: MIT
#include "runtime/instance.hpp"

#include "fastpath/fastpath.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

namespace {

// Whether two configurations as set give engines of one shape (what shape_engine reads).
bool same_engine_shape(const Config& a, const Config& b) {
  return a.chunk_size == b.chunk_size && a.pinned_limit == b.pinned_limit && a.threads == b.threads &&
         a.staging_depth == b.staging_depth && a.parallel_io == b.parallel_io &&
         a.inline_threshold == b.inline_threshold;
}

}  // namespace

Instance::Instance(Config asked, std::shared_ptr<fastpath::Fastpath> fastpath)
    : asked_(std::move(asked)),
      in_force_(shape_engine(asked_)),
      fastpath_(std::move(fastpath)),
      engine_(std::make_shared<EngineCell>()),
      stream_io_(std::make_shared<StreamIoCell>()),
      executor_(std::make_shared<ExecutorCell>()) {}

Instance::Instance(Config asked, const Instance& before)
    : asked_(std::move(asked)),
      in_force_(shape_engine(asked_)),
      fastpath_(before.fastpath_),
      engine_(same_engine_shape(asked_, before.asked_) ? before.engine_ : std::make_shared<EngineCell>()),
      stream_io_(before.stream_io_),
      executor_(before.executor_) {}

Instance::Instance(ForkedChild, const Instance& parent)
    : asked_(parent.asked_),
      in_force_(parent.in_force_),
      fastpath_(parent.fastpath_),
      engine_(std::make_shared<EngineCell>()),
      stream_io_(std::make_shared<StreamIoCell>()),
      executor_(std::make_shared<ExecutorCell>()) {}

Engine& Instance::engine() {
  EngineCell& cell = *engine_;
  if (Engine* built = cell.ready.load(std::memory_order_acquire)) return *built;
  std::call_once(cell.started, [&] {
    sys::PhaseTimer timed(sys::Phase::EngineStart);
    cell.engine = std::make_unique<Engine>(in_force_);
    cell.ready.store(cell.engine.get(), std::memory_order_release);
  });
  return *cell.engine;
}

Executor& Instance::executor() {
  ExecutorCell& cell = *executor_;
  std::call_once(cell.started,
                 [&] { cell.executor = std::make_unique<Executor>(in_force_.effective_async_threads()); });
  return *cell.executor;
}

}  // namespace hipfile::engine

namespace hipfile::engine {

Instance::StreamIoCell& Instance::stream_io() {
  StreamIoCell& cell = *stream_io_;
  std::call_once(cell.started, [&] {
    auto staging = std::make_unique<StagingSlots>(in_force_.chunk_size, in_force_.pinned_limit);
    cell.executor = std::make_unique<Executor>(in_force_.effective_async_threads());
    cell.staging = std::move(staging);
  });
  return cell;
}

Executor& Instance::stream_executor() { return *stream_io().executor; }

StagingSlots& Instance::stream_staging() { return *stream_io().staging; }

}  // namespace hipfile::engine
