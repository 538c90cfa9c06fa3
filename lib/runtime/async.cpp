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

#include "runtime/driver.hpp"
#include "runtime/executor.hpp"
#include "runtime/instance.hpp"
#include "runtime/dispatch.hpp"
#include "sys/log.hpp"
#include "gpu/hip.hpp"

namespace hipfile::engine {


namespace {

// ---- Flag words -----------------------------------------------------------------------------------
// Pinned, device-mapped 32-bit words (hipStreamWaitValue64 is not in every runtime the library
// runs on). A word only ever grows: each use waits for "word >= target" with target = previous
// value + 1, so a slot is reusable as soon as its operation completes (a stream still waiting on
// the old target is satisfied by any later value too). A word is retired before its value could
// wrap: after 2^32 - 1 uses it is never handed out again, so "word >= target" can never be
// satisfied early by a wrapped target.

struct FlagSlot {
  std::uint32_t* host = nullptr;
  void* device = nullptr;
  std::uint32_t target = 0;
  std::uint32_t index = 0;
};

class FlagPool {
 public:
  static constexpr std::size_t kBlockWords = 1024;

  /// A word and its next target. A failed allocation is that call's error only: the next call
  /// tries again.
  hipError_t acquire(FlagSlot& out) {
    std::unique_lock lock(mu_);
    open_cv_.wait(lock, [&] { return !quiet_; });
    for (;;) {
      if (free_.empty())
        if (hipError_t e = grow(); e != hipSuccess) return e;
      const std::uint32_t i = free_.back();
      free_.pop_back();
      Word& w = words_[i];
      if (w.value == UINT32_MAX) continue;  // retired: its next target would wrap to 0
      out.host = w.host;
      out.device = w.device;
      out.index = i;
      out.target = ++w.value;
      ++armed_;
      return hipSuccess;
    }
  }
  /// Raises the word to the slot's target (the stream proceeds) and frees the slot.
  void signal_and_release(const FlagSlot& s) noexcept {
    std::atomic_ref<std::uint32_t>(*s.host).store(s.target, std::memory_order_release);
    std::lock_guard lock(mu_);
    free_.push_back(s.index);  // capacity reserved in grow(): no allocation here
    if (--armed_ == 0) drained_cv_.notify_all();
  }
  /// Runs `fn` while no stream waits on a word: new acquires wait until it returns, and it
  /// starts once every word handed out has been raised. Said once a second while it waits.
  void quiesce(const std::function<void()>& fn) {
    std::unique_lock lock(mu_);
    open_cv_.wait(lock, [&] { return !quiet_; });  // one at a time
    quiet_ = true;
    while (!drained_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return armed_ == 0; }))
      HIPFILE_LOG(Warn, "freeing staging memory waits for %zu async operations still in flight (their "
                  "streams have not reached them)", armed_);
    lock.unlock();
    struct Reopen {
      FlagPool* pool;
      ~Reopen() {
        std::lock_guard again(pool->mu_);
        pool->quiet_ = false;
        pool->open_cv_.notify_all();
      }
    } reopen{this};
    fn();
  }
  void lock_for_fork() noexcept { mu_.lock(); }
  /// In a child, the words armed by the parent's operations and a quiesce running on one of
  /// its threads are the parent's: nothing here will raise or end them, so they are forgotten
  /// (those words are never handed out again).
  void unlock_after_fork(bool in_child) noexcept {
    if (in_child) {
      armed_ = 0;
      quiet_ = false;
    }
    mu_.unlock();
  }
  /// Test hook: every free word continues from `value` (to reach the wrap quickly).
  void advance_free_words(std::uint32_t value) {
    std::lock_guard lock(mu_);
    for (std::uint32_t i : free_) {
      words_[i].value = value;
      std::atomic_ref<std::uint32_t>(*words_[i].host).store(value, std::memory_order_release);
    }
  }

 private:
  struct Word {
    std::uint32_t* host;
    void* device;
    std::uint32_t value;
  };
  hipError_t grow() {  // called with mu_ held; blocks are never freed (a stream may still read them)
    words_.reserve(words_.size() + kBlockWords);
    free_.reserve(words_.size() + kBlockWords);
    void* host = nullptr;
    void* device = nullptr;
    if (hipError_t e = gpu::alloc_host_mapped(kBlockWords * sizeof(std::uint32_t), host, device); e != hipSuccess)
      return e;
    auto* h = static_cast<std::uint32_t*>(host);
    auto* d = static_cast<std::uint32_t*>(device);
    for (std::size_t k = 0; k < kBlockWords; ++k) {
      std::atomic_ref<std::uint32_t>(h[k]).store(0, std::memory_order_relaxed);
      free_.push_back(static_cast<std::uint32_t>(words_.size()));
      words_.push_back(Word{h + k, d + k, 0});
    }
    return hipSuccess;
  }
  std::mutex mu_;
  std::vector<Word> words_;
  std::vector<std::uint32_t> free_;
  std::size_t armed_ = 0;  // words handed out and not yet raised: streams that may wait on one
  bool quiet_ = false;     // a quiesce runs: acquire waits
  std::condition_variable open_cv_, drained_cv_;
};

FlagPool& flags() {
  static FlagPool* p = new FlagPool;
  return *p;
}

// ---- Streams --------------------------------------------------------------------------------------

struct StreamTable {
  std::mutex mu;
  std::unordered_map<hipStream_t, unsigned> flags;
  // Serialises the two enqueues of one submission per stream (striped), so that concurrent
  // submitters on one stream cannot interleave their hand-off and wait.
  std::mutex stripes[16];
  std::mutex& stripe(hipStream_t s) {
    return stripes[(reinterpret_cast<std::uintptr_t>(s) >> 4) % 16];
  }
};

StreamTable& streams() {
  static StreamTable* t = new StreamTable;
  return *t;
}

// ---- One operation --------------------------------------------------------------------------------

// Whether a submitted operation may run. It is Undecided from the hand-off's enqueue until the
// stream's wait is enqueued too: only then has the submission succeeded. A submission that
// fails after the hand-off was enqueued cancels it, and the operation touches nothing.
enum class Decision { Undecided, Armed, Canceled };

struct AsyncOp {
  Direction dir = Direction::Read;
  hipFileHandle_t fh = nullptr;
  void* base = nullptr;
  std::size_t* size_p = nullptr;
  hoff_t* file_offset_p = nullptr;
  hoff_t* buffer_offset_p = nullptr;
  ssize_t* bytes_p = nullptr;
  unsigned flags = 0;
  std::size_t size = 0;  // the size at submission (fixed or the upper bound)
  hoff_t file_offset = 0;
  hoff_t buffer_offset = 0;
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
  hoff_t file_offset = op->file_offset;
  hoff_t buffer_offset = op->buffer_offset;
  // Deferred parameters are read now, when the stream has reached the operation.
  if (!(op->flags & HIPFILE_STREAM_FIXED_FILE_SIZE)) size = *op->size_p;
  if (!(op->flags & HIPFILE_STREAM_FIXED_FILE_OFFSET)) file_offset = *op->file_offset_p;
  if (!(op->flags & HIPFILE_STREAM_FIXED_BUF_OFFSET)) buffer_offset = *op->buffer_offset_p;
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
  if (op->wait_decision() == Decision::Armed) *op->bytes_p = bytes_result(run_op(op));
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

Status stream_register(hipStream_t stream, unsigned flags_in) {
  if ((flags_in & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) != 0) return Status::of(Error::InvalidValue);
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    gpu::clear_last_error();
    return Status::of_hip(e);
  }
  StreamTable& t = streams();
  std::lock_guard lock(t.mu);
  if (!t.flags.emplace(stream, flags_in).second) return Status::of(Error::InvalidValue);
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
// leaves nothing behind; `flags_out` is the stream's registration flags (0: not registered).
Status check_submission(Driver& driver, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                                hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                                hipStream_t stream, unsigned& flags_out) {
  if (buffer_base == nullptr || size_p == nullptr || file_offset_p == nullptr || buffer_offset_p == nullptr ||
      bytes_p == nullptr)
    return Status::of(Error::InvalidValue);
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    gpu::clear_last_error();
    return Status::of_hip(e);
  }
  StreamTable& t = streams();
  flags_out = 0;  // an unregistered stream is used with no fixed parameters
  {
    std::lock_guard lock(t.mu);
    if (auto it = t.flags.find(stream); it != t.flags.end()) flags_out = it->second;
  }
  if (!driver.files.find(fh)) return Status::of(Error::HandleNotRegistered);
  return check_region(buffer_base, *size_p, *file_offset_p, *buffer_offset_p);
}

// The operation with the parameters as they are now (kept where the stream fixed them), its
// queue node and its flag word: everything that can fail without side effects.
Status prepare_op(std::unique_ptr<AsyncOp>& op, std::shared_ptr<Instance> instance, Direction dir,
                          hipFileHandle_t fh, void* buffer_base, std::size_t* size_p, hoff_t* file_offset_p,
                          hoff_t* buffer_offset_p, ssize_t* bytes_p, unsigned flags_now) {
  op = std::make_unique<AsyncOp>();
  op->dir = dir;
  op->fh = fh;
  op->base = buffer_base;
  op->size_p = size_p;
  op->file_offset_p = file_offset_p;
  op->buffer_offset_p = buffer_offset_p;
  op->bytes_p = bytes_p;
  op->flags = flags_now;
  op->size = *size_p;
  op->file_offset = *file_offset_p;
  op->buffer_offset = *buffer_offset_p;
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
  *raw->bytes_p = 0;  // before the operation may run: it writes the result
  raw->decide(Decision::Armed);
  raw->unref();  // this call's reference: the operation may already be done and gone after it
  return Status::success();
}

}  // namespace

Status submit_async(Direction dir, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                            hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                            hipStream_t stream) {
  Driver& driver = Driver::get();
  // Held until the operation has run, so that its executor and engine outlive it.
  std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) {
    driver.open_implicitly();  // upstream: open, and still refuse this call
    return Status::of(Error::InvalidValue);
  }
  unsigned flags_now = 0;
  if (Status e = check_submission(driver, fh, buffer_base, size_p, file_offset_p, buffer_offset_p, bytes_p,
                                          stream, flags_now);
      !e.ok())
    return e;
  if (*size_p == 0) {
    *bytes_p = 0;
    return Status::success();  // as upstream: nothing to enqueue
  }
  (void)instance->executor();  // started now, so that the hand-off only queues
  std::unique_ptr<AsyncOp> op;
  if (Status e = prepare_op(op, std::move(instance), dir, fh, buffer_base, size_p, file_offset_p,
                                    buffer_offset_p, bytes_p, flags_now);
      !e.ok())
    return e;
  return enqueue(std::move(op), stream);
}

void without_async_waits(const std::function<void()>& fn) { flags().quiesce(fn); }

// The order a submission takes them in: a stream's stripe, then the pool's lock.
void async_prepare_fork() noexcept {
  StreamTable& t = streams();
  for (std::mutex& m : t.stripes) m.lock();
  t.mu.lock();
  flags().lock_for_fork();
}

void async_after_fork(bool in_child) noexcept {
  StreamTable& t = streams();
  flags().unlock_after_fork(in_child);
  t.mu.unlock();
  for (std::mutex& m : t.stripes) m.unlock();
}

void advance_flag_words_for_test(std::uint32_t value) { flags().advance_free_words(value); }

}  // namespace hipfile::engine
