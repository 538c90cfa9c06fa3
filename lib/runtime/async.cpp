// SPDX-License-Identifier: MIT
#include "runtime/async.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "runtime/dispatch.hpp"
#include "runtime/driver.hpp"
#include "runtime/executor.hpp"
#include "runtime/flag_words.hpp"
#include "runtime/instance.hpp"
#include "runtime/stats.hpp"
#include "sys/log.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

namespace {

// Slots per operation: the preads (or pwrites) of that many pieces run at once, on as many
// executor threads, while the stream copies the pieces before them.
constexpr std::size_t kRing = 4;

struct AsyncOp;

// One piece of the window: its bytes (relative to the window's start), the part of it the
// operation moves once its parameters are known, and that part's result.
struct Piece {
  std::size_t begin = 0, end = 0;
  std::size_t lo = 0, hi = 0;  // the moved part, [lo, hi) of the window; empty: nothing to move
  off_t file_offset = 0;       // of byte `lo`
  IoResult result;
  bool ran = false;
  bool posted = false;  // set by the host function that posts it, before the executor has it
  std::atomic<bool> done{false};
};

// What a host function on the stream is handed: the operation and which piece it is at.
struct Step {
  AsyncOp* op = nullptr;
  std::size_t k = 0;
};

struct AsyncOp {
  Direction dir = Direction::Read;
  FileId fh = 0;
  std::byte* base = nullptr;
  AsyncArgs args;
  AsyncDone done;
  StreamFixed fixed;
  // The window, as submitted.
  std::size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  int device = -1;  // the buffer's device; -1: CPU-accessible memory, moved in place
  std::shared_ptr<Instance> instance;
  std::size_t ring = 1;           // pieces in flight at once; piece k uses slot and word k % ring
  std::vector<std::byte*> slots;  // device buffers only: the staging
  std::size_t slot_bytes = 0;     // each piece's size (and each slot's)
  std::vector<FlagWords::Word> words;  // the stream waits on words[k % ring] for piece k
  std::vector<Piece> pieces;
  std::vector<Step> steps;
  std::vector<Executor::Tasks> tasks;  // one queue node per piece, made at submission
  // Set by the first host function, when the stream reaches the operation.
  Status refused;  // not ok: the operation moves nothing and reports this
  Lease<File> file;
  std::atomic<bool> stopped{false};  // a piece failed or ended short: later ones need not run
  std::uint64_t started = 0;

  // Every part but the finish is on the stream: the submission succeeds unless the finish cannot
  // be queued. Set before the finish is queued, so the finish reads it as it was then.
  bool complete = false;
  // The submitting call and each host function queued: the last one deletes it.
  std::atomic<int> refs{1};

  void unref() noexcept {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  Piece& piece(std::size_t k) noexcept { return pieces[k]; }
  std::byte* window() const noexcept { return base + buffer_offset; }
  std::byte* slot_of(std::size_t k) const noexcept { return slots[k % ring]; }
  // Piece k's use of its word (1-based): the pieces of one word run one after another.
  std::uint32_t use_of(std::size_t k) const noexcept { return static_cast<std::uint32_t>(k / ring + 1); }
};

// ---- When the stream reaches the operation -------------------------------------------------------

// The parameters as they are now (those the stream fixed as submitted), checked against the
// window and the file; on success each piece knows the part it moves.
Status resolve_parameters(AsyncOp& op) {
  const std::size_t size = op.fixed.size ? op.size : *op.args.size;
  const off_t file_offset = op.fixed.file_offset ? op.file_offset : *op.args.file_offset;
  const off_t buffer_offset = op.fixed.buffer_offset ? op.buffer_offset : *op.args.buffer_offset;
  if (!valid_arguments(op.base, size, file_offset, buffer_offset)) return Status::of(Error::InvalidValue);
  // The region must lie in the window: the copies on the stream were queued for it.
  if (buffer_offset < op.buffer_offset) return Status::of(Error::InvalidValue);
  const auto from = static_cast<std::size_t>(buffer_offset - op.buffer_offset);
  if (from > op.size || size > op.size - from) return Status::of(Error::InvalidValue);
  op.file = Driver::get().files.find(op.fh);
  if (!op.file) return Status::of(Error::HandleNotRegistered);
  if (Status st = check_access(op.dir, *op.file); !st.ok()) return st;
  const Config& config = op.instance->config();
  if (op.device < 0 && !config.allow_system_memory) return Status::of(Error::HipMemoryTypeInvalid);
  if (op.device >= 0 && !config.allow_compat) return Status::of(Error::IODisabled);
  for (Piece& p : op.pieces) {
    p.lo = std::max(p.begin, from);
    p.hi = std::max(p.lo, std::min(p.end, from + size));
    p.file_offset = file_offset + static_cast<off_t>(p.lo - from);
  }
  return Status::success();
}

// The first host function. It never waits for the submitting call, which may itself be waiting
// for the runtime (a free in another thread holds its lock until this stream drains).
void start(AsyncOp& op) {
  op.started = stats::start();
  try {
    op.refused = resolve_parameters(op);
  } catch (...) {
    op.refused = Status::of(Error::InternalError);
  }
}

// Where piece k's bytes are in host memory: its staging slot, or the caller's memory itself.
std::byte* host_bytes(AsyncOp& op, std::size_t k) {
  const Piece& p = op.piece(k);
  if (op.device < 0) return op.window() + p.lo;
  return op.slot_of(k) + (p.lo - p.begin);
}

// Piece k has moved (or will not): its waiters, on the stream and on the host, go on.
void piece_done(AsyncOp& op, std::size_t k) noexcept {
  // The word first: the finish gives the words back once every piece is done.
  if (!op.words.empty()) FlagWords::raise(op.words[k % op.ring], op.use_of(k));
  Piece& p = op.piece(k);
  p.done.store(true, std::memory_order_release);
  p.done.notify_all();
}

// On a stream executor thread: piece k's pread or pwrite, on host memory alone.
void move_piece(AsyncOp& op, std::size_t k) noexcept {
  Piece& p = op.piece(k);
  if (p.hi > p.lo && !op.stopped.load(std::memory_order_acquire)) {
    Request req;
    req.dir = op.dir;
    req.file = op.file.get();
    req.mem = host_bytes(op, k);
    req.size = p.hi - p.lo;
    req.offset = p.file_offset;
    try {
      p.result = op.instance->engine().execute_on_caller(req);
    } catch (...) {
      p.result.status = Status::of(Error::InternalError);
    }
    p.ran = true;
    if (!p.result.ok() || static_cast<std::size_t>(p.result.bytes) < req.size)
      op.stopped.store(true, std::memory_order_release);
  }
  piece_done(op, k);
  op.unref();
}

// Starts piece k, or (for an operation that moves nothing) says at once that it is done: every
// wait on the stream has a post before it, so every wait ends.
void post(AsyncOp& op, std::size_t k) noexcept {
  if (k >= op.pieces.size()) return;
  op.piece(k).posted = true;
  if (!op.refused.ok()) return piece_done(op, k);
  op.refs.fetch_add(1, std::memory_order_relaxed);  // the executor's, until the piece is done
  op.instance->stream_executor().post(op.tasks[k]);
}

// Only host functions post, and a piece is waited for only after its post; a piece never posted
// (a submission that failed part-way) is not waited for.
void wait_for(AsyncOp& op, std::size_t k) noexcept {
  Piece& p = op.piece(k);
  if (!p.posted) return;
  while (!p.done.load(std::memory_order_acquire)) p.done.wait(false, std::memory_order_acquire);
}

// POSIX's convention over the pieces in order: the contiguous prefix that moved, or the error
// when nothing did.
IoResult outcome(const AsyncOp& op) {
  IoResult r;
  if (!op.refused.ok()) {
    r.status = op.refused;
    return r;
  }
  std::size_t moved = 0;
  for (const Piece& p : op.pieces) {
    if (p.hi == p.lo) continue;
    if (!p.ran) break;
    if (!p.result.ok()) {
      if (moved == 0) return p.result;
      break;
    }
    moved += static_cast<std::size_t>(p.result.bytes);
    if (static_cast<std::size_t>(p.result.bytes) < p.hi - p.lo) break;
  }
  r.bytes = static_cast<ssize_t>(moved);
  return r;
}

// ---- Host functions --------------------------------------------------------------------------------
// None waits for anything: each starts preads or pwrites, and the stream itself waits for them
// on their words. Where the device has no stream waits, wait_step blocks instead, for host-side
// I/O alone.

// The stream has reached the operation: its parameters are read, and a read starts the pieces
// of the ring.
void start_read(void* p) noexcept {
  AsyncOp& op = *static_cast<AsyncOp*>(p);
  start(op);
  for (std::size_t k = 0; k < op.ring; ++k) post(op, k);
  op.unref();
}

// A write's first piece is in staging (or, in host memory, in place): parameters, then its pwrite.
void start_write(void* p) noexcept {
  AsyncOp& op = *static_cast<AsyncOp*>(p);
  start(op);
  post(op, 0);
  op.unref();
}

// Piece k may start: its slot holds what it needs (a write's bytes, a read's window copy).
void post_step(void* p) noexcept {
  auto& step = *static_cast<Step*>(p);
  post(*step.op, step.k);
  step.op->unref();
}

void wait_step(void* p) noexcept {
  auto& step = *static_cast<Step*>(p);
  wait_for(*step.op, step.k);
  step.op->unref();
}

// The last host function: the stream has passed every copy. Waits for what is still moving,
// stores the result (only for a submission that succeeded: after a failed one the caller may
// have freed *bytes) and gives the operation's resources back.
void finish(void* p) noexcept {
  AsyncOp& op = *static_cast<AsyncOp*>(p);
  for (std::size_t k = 0; k < op.pieces.size(); ++k) wait_for(op, k);
  if (op.complete) {
    IoResult r = outcome(op);
    if (r.ok() && r.bytes > 0 && op.dir == Direction::Write && op.instance->config().durable_writes &&
        sys::ops.fdatasync(op.file->buffered_fd) != 0)
      r.status = Status::of_errno(errno);
    if (op.refused.ok())
      stats::record(op.device >= 0 ? stats::Path::Engine : stats::Path::Host, op.dir, op.device,
                    r.ok() && r.bytes > 0 ? static_cast<std::size_t>(r.bytes) : 0, op.started, !r.ok());
    op.done(r);
  }
  op.file.reset();
  op.instance->stream_staging().give_back(op.slot_bytes, op.slots);
  flag_words().give_back(op.words);
  op.instance.reset();
  op.unref();
}

// ---- Submission ------------------------------------------------------------------------------------

// The checks upstream makes at submission, on the parameters as they are now. An error return
// leaves nothing behind; `fixed` is what the stream's registration fixes (nothing when it is
// not registered), `device` the buffer's device (-1: CPU-accessible memory).
Status check_submission(Driver& driver, FileId fh, void* buffer_base, const AsyncArgs& args, const AsyncDone& done,
                        hipStream_t stream, StreamFixed& fixed, int& device) {
  if (buffer_base == nullptr || args.size == nullptr || args.file_offset == nullptr || args.buffer_offset == nullptr ||
      !done)
    return Status::of(Error::InvalidValue);
  int stream_device = -1;
  if (hipError_t e = gpu::stream_device(stream, stream_device); e != hipSuccess) {
    gpu::clear_last_error();
    return Status::of_hip(e);
  }
  StreamTable& t = streams();
  fixed = StreamFixed{};
  {
    std::lock_guard lock(t.mu);
    if (auto it = t.flags.find(stream); it != t.flags.end()) fixed = it->second;
  }
  if (!driver.files.find(fh)) return Status::of(Error::HandleNotRegistered);
  return check_region(buffer_base, *args.size, *args.file_offset, *args.buffer_offset, &device);
}

// The operation with its window cut into pieces, their queue nodes and its staging: everything
// that can fail without side effects.
Status prepare_op(AsyncOp& op) {
  Instance& instance = *op.instance;
  (void)instance.engine();  // started here: the executor's threads only use it
  StagingSlots& staging = instance.stream_staging();
  const std::size_t piece = op.slot_bytes = staging.slot_size_for(op.size);
  const std::size_t n = (op.size + piece - 1) / piece;
  op.pieces = std::vector<Piece>(n);
  op.steps.resize(n);
  op.tasks.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    op.pieces[k].begin = k * piece;
    op.pieces[k].end = std::min(op.size, (k + 1) * piece);
    op.steps[k] = Step{&op, k};
    AsyncOp* raw = &op;
    op.tasks[k].push_back([raw, k] { move_piece(*raw, k); });
  }
  op.ring = std::min(n, kRing);
  const auto uses = static_cast<std::uint32_t>((n + op.ring - 1) / op.ring);
  if (hipError_t e = flag_words().take(op.ring, uses, op.words); e != hipSuccess) return Status::of_hip(e);
  if (op.device < 0) return Status::success();
  if (hipError_t e = staging.take(piece, op.ring, op.slots); e != hipSuccess) return Status::of_hip(e);
  return Status::success();
}

// Queues a host function that holds a reference to the operation until it has run.
hipError_t launch(AsyncOp& op, hipStream_t stream, void (*fn)(void*), void* data) {
  op.refs.fetch_add(1, std::memory_order_relaxed);
  const hipError_t e = gpu::launch_host_func(stream, fn, data);
  if (e != hipSuccess) op.refs.fetch_sub(1, std::memory_order_relaxed);
  return e;
}

// Piece k's bytes between its slot and the caller's buffer, on the stream. CPU-accessible
// memory is moved in place: no copies.
hipError_t copy_in(AsyncOp& op, std::size_t k, hipStream_t stream) {  // buffer -> slot
  if (op.device < 0) return hipSuccess;
  const Piece& p = op.piece(k);
  return gpu::copy_to_host_async(op.slot_of(k), op.window() + p.begin, p.end - p.begin, stream);
}
hipError_t copy_out(AsyncOp& op, std::size_t k, hipStream_t stream) {  // slot -> buffer
  if (op.device < 0 || op.dir == Direction::Write) return hipSuccess;
  const Piece& p = op.piece(k);
  return gpu::copy_to_device_async(op.window() + p.begin, op.slot_of(k), p.end - p.begin, stream);
}

// The stream waits until piece k has moved: on its word, or where the device cannot wait on
// memory, in a host function.
hipError_t wait_piece(AsyncOp& op, std::size_t k, hipStream_t stream) {
  const hipError_t e = gpu::stream_wait_geq32(stream, op.words[k % op.ring].device,
                                              op.words[k % op.ring].base + op.use_of(k));
  if (e != hipErrorNotSupported) return e;
  gpu::clear_last_error();
  return launch(op, stream, wait_step, &op.steps[k]);
}

hipError_t enqueue_read(AsyncOp& op, hipStream_t stream) {
  const std::size_t n = op.pieces.size(), ring = op.ring;
  for (std::size_t k = 0; k < ring; ++k)
    if (hipError_t e = copy_in(op, k, stream); e != hipSuccess) return e;
  if (hipError_t e = launch(op, stream, start_read, &op); e != hipSuccess) return e;
  for (std::size_t k = 0; k < n; ++k) {
    if (hipError_t e = wait_piece(op, k, stream); e != hipSuccess) return e;
    if (hipError_t e = copy_out(op, k, stream); e != hipSuccess) return e;
    if (k + ring >= n) continue;
    if (hipError_t e = copy_in(op, k + ring, stream); e != hipSuccess) return e;
    if (hipError_t e = launch(op, stream, post_step, &op.steps[k + ring]); e != hipSuccess) return e;
  }
  return hipSuccess;
}

hipError_t enqueue_write(AsyncOp& op, hipStream_t stream) {
  const std::size_t n = op.pieces.size(), ring = op.ring;
  for (std::size_t k = 0; k < n; ++k) {
    if (k >= ring)
      if (hipError_t e = wait_piece(op, k - ring, stream); e != hipSuccess) return e;  // its slot is refilled
    if (hipError_t e = copy_in(op, k, stream); e != hipSuccess) return e;
    hipError_t e = k == 0 ? launch(op, stream, start_write, &op) : launch(op, stream, post_step, &op.steps[k]);
    if (e != hipSuccess) return e;
  }
  for (std::size_t k = n > ring ? n - ring : 0; k < n; ++k)
    if (hipError_t e = wait_piece(op, k, stream); e != hipSuccess) return e;
  return hipSuccess;
}

hipError_t enqueue_steps(AsyncOp& op, hipStream_t stream) {
  return op.dir == Direction::Read ? enqueue_read(op, stream) : enqueue_write(op, stream);
}

// Puts the operation on the stream. Its host functions may run as soon as the first is queued,
// so they never wait for this call; where the runtime refuses a part, the parts queued before
// it still run (a read or write of the pieces they cover) but no result is stored, and the call
// fails. A finish queued after them gives the staging back; where even that cannot be queued,
// the staging stays out of use until the driver closes.
Status enqueue(std::unique_ptr<AsyncOp> owned, hipStream_t stream) {
  AsyncOp& op = *owned;
  hipError_t e = enqueue_steps(op, stream);
  if (e == hipSuccess) {
    op.complete = true;
    e = launch(op, stream, finish, &op);
  }
  if (e != hipSuccess) {
    gpu::clear_last_error();
    op.complete = false;  // no finish of this call's is on the stream to read it
    if (launch(op, stream, finish, &op) != hipSuccess) gpu::clear_last_error();
  }
  owned.release();  // the last of this call and the host functions deletes it
  op.unref();
  if (e == hipSuccess) return Status::success();
  gpu::clear_last_error();
  HIPFILE_LOG(Debug, "async submission failed while queuing (%s)", gpu::error_name(e));
  return Status::of_hip(e);
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

Status submit_async(Direction dir, FileId fh, void* buffer_base, const AsyncArgs& args, AsyncDone done,
                    hipStream_t stream) {
  Driver& driver = Driver::get();
  // Held until the stream has passed the operation, so that its executor and engine outlive it.
  std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) {
    driver.open_implicitly();  // upstream: open, and still refuse this call
    return Status::of(Error::InvalidValue);
  }
  StreamFixed fixed;
  int device = -1;
  if (Status e = check_submission(driver, fh, buffer_base, args, done, stream, fixed, device); !e.ok()) return e;
  done(IoResult{});  // as upstream: *bytes is 0 once the checks pass, whatever follows
  if (*args.size == 0) return Status::success();  // as upstream: nothing to enqueue
  auto op = std::make_unique<AsyncOp>();
  op->dir = dir;
  op->fh = fh;
  op->base = static_cast<std::byte*>(buffer_base);
  op->args = args;
  op->done = std::move(done);
  op->fixed = fixed;
  op->size = *args.size;
  op->file_offset = *args.file_offset;
  op->buffer_offset = *args.buffer_offset;
  op->device = device;
  op->instance = std::move(instance);
  if (Status e = prepare_op(*op); !e.ok()) {
    op->instance->stream_staging().give_back(op->slot_bytes, op->slots);
    flag_words().give_back(op->words);
    return e;
  }
  return enqueue(std::move(op), stream);
}

}  // namespace hipfile::engine
