// SPDX-License-Identifier: MIT
#include "runtime/async.hpp"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gpu/hip.hpp"
#include "runtime/async_state.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/driver.hpp"
#include "runtime/executor.hpp"
#include "runtime/instance.hpp"
#include "sys/log.hpp"

namespace hipfile::engine {

namespace {

// ---- One operation --------------------------------------------------------------------------------

// Whether a submitted operation may run. It is Undecided from the hand-off's enqueue until the
// stream's wait is enqueued too: only then has the submission succeeded. A submission that
// fails after the hand-off was enqueued cancels it, and the operation touches nothing.
enum class Decision { Undecided, Armed, Canceled };

struct AsyncOp {
  Direction dir = Direction::Read;
  FileId fh = 0;
  void* base = nullptr;
  AsyncArgs args;
  AsyncDone done;
  StreamFixed fixed;
  std::size_t size = 0;  // the size at submission (fixed or the upper bound)
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  FlagSlot slot;
  std::shared_ptr<Instance> instance;  // its executor runs the operation; released when it is done
  Executor::Tasks task;  // the executor's queue node, made at submission: the hand-off allocates nothing

  std::mutex mu;
  std::condition_variable decided_cv;
  Decision decision = Decision::Undecided;
  // Two owners once the hand-off is enqueued: the executor and the submitting call, which still
  // signals the decision after the executor may have run it. The last one deletes it.
  std::atomic<int> refs{2};
  void unref() noexcept {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  void decide(Decision d) {
    {
      std::lock_guard lock(mu);
      decision = d;
    }
    decided_cv.notify_all();
  }
  Decision wait_decision() {
    std::unique_lock lock(mu);
    decided_cv.wait(lock, [&] { return decision != Decision::Undecided; });
    return decision;
  }
};

IoResult run_op(AsyncOp* op) {
  std::size_t size = op->size;
  off_t file_offset = op->file_offset;
  off_t buffer_offset = op->buffer_offset;
  // Deferred parameters are read now, when the stream has reached the operation.
  if (!op->fixed.size) size = *op->args.size;
  if (!op->fixed.file_offset) file_offset = *op->args.file_offset;
  if (!op->fixed.buffer_offset) buffer_offset = *op->args.buffer_offset;
  IoResult r;
  if (size > op->size) {
    r.status = Status::of(Error::InvalidValue);  // a size may shrink, never grow
    return r;
  }
  try {
    r = do_io(op->dir, op->fh, op->base, size, file_offset, buffer_offset);
  } catch (...) {
    r.status = Status::of(Error::InternalError);
  }
  return r;
}

// On an executor thread. The operation is owned here from now on.
void execute(AsyncOp* op) noexcept {
  // Canceled: the submission returned an error, so the caller may have freed the buffer and
  // *bytes already. Nothing is read or written; the word is raised only to keep it growing.
  if (op->wait_decision() == Decision::Armed) op->done(run_op(op));
  flags().signal_and_release(op->slot);
  op->unref();
}

// Host function: the stream reached the operation. Only hands it over, and cannot fail: the
// queue node was made at submission, so this allocates nothing and throws nothing.
void hand_off(void* p) noexcept {
  auto* op = static_cast<AsyncOp*>(p);
  op->instance->executor().post(op->task);  // started at submission: this only queues
}

}  // namespace

Status stream_register(hipStream_t stream, StreamFixed fixed) {
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    gpu::clear_last_error();
    return Status::of_hip(e);
  }
  StreamTable& t = streams();
  std::lock_guard lock(t.mu);
  if (!t.flags.emplace(stream, fixed).second) return Status::of(Error::InvalidValue);
  return Status::success();
}

Status stream_deregister(hipStream_t stream) {
  StreamTable& t = streams();
  std::lock_guard lock(t.mu);
  if (t.flags.erase(stream) == 0) return Status::of(Error::InvalidValue);
  return Status::success();
}

namespace {

// The checks upstream makes at submission, on the parameters as they are now. An error return
// leaves nothing behind; `fixed` is what the stream's registration fixes (nothing when it is
// not registered).
Status check_submission(Driver& driver, FileId fh, void* buffer_base, const AsyncArgs& args, const AsyncDone& done,
                        hipStream_t stream, StreamFixed& fixed) {
  if (buffer_base == nullptr || args.size == nullptr || args.file_offset == nullptr || args.buffer_offset == nullptr ||
      !done)
    return Status::of(Error::InvalidValue);
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    gpu::clear_last_error();
    return Status::of_hip(e);
  }
  StreamTable& t = streams();
  fixed = StreamFixed{};  // an unregistered stream is used with no fixed parameters
  {
    std::lock_guard lock(t.mu);
    if (auto it = t.flags.find(stream); it != t.flags.end()) fixed = it->second;
  }
  if (!driver.files.find(fh)) return Status::of(Error::HandleNotRegistered);
  return check_region(buffer_base, *args.size, *args.file_offset, *args.buffer_offset);
}

// The operation with the parameters as they are now (kept where the stream fixed them), its
// queue node and its flag word: everything that can fail without side effects.
Status prepare_op(std::unique_ptr<AsyncOp>& op, std::shared_ptr<Instance> instance, Direction dir, FileId fh,
                  void* buffer_base, const AsyncArgs& args, AsyncDone done, StreamFixed fixed) {
  op = std::make_unique<AsyncOp>();
  op->dir = dir;
  op->fh = fh;
  op->base = buffer_base;
  op->args = args;
  op->done = std::move(done);
  op->fixed = fixed;
  op->size = *args.size;
  op->file_offset = *args.file_offset;
  op->buffer_offset = *args.buffer_offset;
  op->instance = std::move(instance);
  AsyncOp* raw = op.get();
  op->task.push_back([raw] { execute(raw); });
  if (hipError_t e = flags().acquire(op->slot); e != hipSuccess) return Status::of_hip(e);
  return Status::success();
}

// Puts the hand-off and the wait on the stream. The submission has succeeded only when both are
// enqueued; from the hand-off on, the executor and this call share the operation (refs).
Status enqueue(std::unique_ptr<AsyncOp> op, hipStream_t stream) {
  const FlagSlot slot = op->slot;
  std::lock_guard order(streams().stripe(stream));
  if (hipError_t e = gpu::launch_host_func(stream, hand_off, op.get()); e != hipSuccess) {
    gpu::clear_last_error();
    flags().signal_and_release(slot);
    return Status::of_hip(e);
  }
  AsyncOp* raw = op.release();  // the stream hands it over whatever happens
  const hipError_t e = gpu::stream_wait_geq32(stream, slot.device, slot.target);
  if (e != hipSuccess) {
    // Without the device-side wait the stream would run ahead of the I/O. No host function
    // blocks the stream instead (CUDA forbids waiting in one on work that uses other streams):
    // the operation is canceled before it can touch anything, and this call fails alone; the
    // next submission tries the wait again.
    raw->decide(Decision::Canceled);
    raw->unref();  // this call's reference
    if (e == hipErrorNotSupported) return Status::of(Error::AsyncNotSupported);
    return Status::of_hip(e);
  }
  raw->done(IoResult{});  // before the operation may run: it stores the result
  raw->decide(Decision::Armed);
  raw->unref();  // this call's reference: the operation may already be done and gone after it
  return Status::success();
}

}  // namespace

Status submit_async(Direction dir, FileId fh, void* buffer_base, const AsyncArgs& args, AsyncDone done,
                    hipStream_t stream) {
  Driver& driver = Driver::get();
  // Held until the operation has run, so that its executor and engine outlive it.
  std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) {
    driver.open_implicitly();  // upstream: open, and still refuse this call
    return Status::of(Error::InvalidValue);
  }
  StreamFixed fixed;
  if (Status e = check_submission(driver, fh, buffer_base, args, done, stream, fixed); !e.ok()) return e;
  if (*args.size == 0) {
    done(IoResult{});
    return Status::success();  // as upstream: nothing to enqueue
  }
  (void)instance->executor();  // started now, so that the hand-off only queues
  std::unique_ptr<AsyncOp> op;
  if (Status e = prepare_op(op, std::move(instance), dir, fh, buffer_base, args, std::move(done), fixed); !e.ok())
    return e;
  return enqueue(std::move(op), stream);
}

}  // namespace hipfile::engine
