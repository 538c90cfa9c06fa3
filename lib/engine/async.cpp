// SPDX-License-Identifier: MIT
#include "engine/async.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "engine/config.hpp"
#include "engine/driver.hpp"
#include "engine/env.hpp"
#include "engine/log.hpp"
#include "engine/io.hpp"
#include "gpu/hip.hpp"

namespace hipfile::engine {

ssize_t async_result(const IoResult& r) noexcept {
  if (r.ok()) return r.bytes;
  if (r.status.sys != 0) return -static_cast<ssize_t>(r.status.sys);
  return -static_cast<ssize_t>(r.status.op == hipFileSuccess ? hipFileInternalError : r.status.op);
}

Status check_region(const void* buffer_base, std::size_t size, hoff_t file_offset, hoff_t buffer_offset) {
  if (buffer_base == nullptr || file_offset < 0 || buffer_offset < 0 ||
      size > static_cast<std::size_t>(LLONG_MAX) || file_offset > LLONG_MAX - static_cast<hoff_t>(size))
    return Status::of(hipFileInvalidValue);
  const auto* base = static_cast<const std::byte*>(buffer_base);
  std::size_t usable = SIZE_MAX;
  if (Lease<Buffer> reg = Driver::get().buffers.find_containing(base)) {
    usable = static_cast<std::size_t>(reg->base + reg->length - base);
  } else {
    gpu::PointerInfo info;
    if (hipError_t e = gpu::query_pointer(base, info); e != hipSuccess) return Status::of_hip(e);
    if (info.alloc_base != nullptr) usable = static_cast<std::size_t>(info.alloc_base + info.alloc_size - base);
    if (gpu::bound_unknown(info)) return Status::of(hipFileInvalidValue);  // as do_io (engine/io.cpp)
  }
  const auto off = static_cast<std::size_t>(buffer_offset);
  if (off > usable || size > usable - off || (off == usable && usable != 0 && size != 0))
    return Status::of(hipFileInvalidValue);
  return Status::success();
}

// ---- Executor -----------------------------------------------------------------------------------

Executor& Executor::get() {
  static Executor* e = new Executor;  // leaked: threads may still run at exit
  return *e;
}

Executor::Executor() {
  unsigned n = async_threads_from_environment();
  threads_.reserve(n);
  // A thread that cannot be created leaves a smaller pool; none at all is an error for the caller.
  for (unsigned i = 0; i < n; ++i) {
    try {
      threads_.emplace_back([this] { main(); });
    } catch (...) {
      break;
    }
  }
  if (threads_.empty()) throw std::runtime_error("no executor thread could be started");
  for (auto& t : threads_) t.detach();
}

unsigned async_threads_from_environment() {
  // As many as the staging engine's automatic workers (one per core, up to 16), and at least 8
  // for small requests, which run on the executor thread itself. More threads than workers only
  // queue large requests behind the workers, and that queue cost the H200 more than half of the
  // rate of 256 reads of 4 MiB in flight (bench/RESULTS.md, hipfile++ futures).
  const unsigned automatic = std::clamp(std::thread::hardware_concurrency(), 8u, 16u);
  const char* v = env::get("HIPFILE_ASYNC_THREADS");
  if (v == nullptr) return automatic;
  std::size_t n = 0;
  // Parsed with overflow checks: 4294967297 is out of range, not 1.
  if (!parse_count(v, n) || n < 1 || n > 256) {
    log::once(std::string("HIPFILE_ASYNC_THREADS=") + v, log::Level::Warn,
              "ignoring HIPFILE_ASYNC_THREADS=\"%s\": expected 1-256", v);
    return automatic;
  }
  return static_cast<unsigned>(n);
}

void Executor::post(std::function<void()> task) {
  Tasks one;
  one.push_back(std::move(task));  // may throw: nothing is queued then
  post(one);
}

void Executor::post(Tasks& prepared) noexcept {
  {
    std::lock_guard lock(mu_);
    queue_.splice(queue_.end(), prepared);  // allocates nothing, cannot throw
  }
  wake_.notify_all();
}

void Executor::main() {
  for (;;) {
    Tasks one;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return !queue_.empty(); });
      one.splice(one.end(), queue_, queue_.begin());
    }
    std::function<void()>& task = one.front();
    try {
      task();
    } catch (...) {
      // A task reports its own failure; nothing may take the thread down.
    }
  }
}

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
    std::lock_guard lock(mu_);
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
      return hipSuccess;
    }
  }
  /// Raises the word to the slot's target (the stream proceeds) and frees the slot.
  void signal_and_release(const FlagSlot& s) noexcept {
    std::atomic_ref<std::uint32_t>(*s.host).store(s.target, std::memory_order_release);
    std::lock_guard lock(mu_);
    free_.push_back(s.index);  // capacity reserved in grow(): no allocation here
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
    r.status = Status::of(hipFileInvalidValue);  // a size may shrink, never grow
    return r;
  }
  try {
    r = do_io(op->dir, op->fh, op->base, size, file_offset, buffer_offset);
  } catch (...) {
    r.status = Status::of(hipFileInternalError);
  }
  return r;
}

// On an executor thread. The operation is owned here from now on.
void execute(AsyncOp* op) noexcept {
  // Canceled: the submission returned an error, so the caller may have freed the buffer and
  // *bytes already. Nothing is read or written; the word is raised only to keep it growing.
  if (op->wait_decision() == Decision::Armed) *op->bytes_p = async_result(run_op(op));
  flags().signal_and_release(op->slot);
  op->unref();
}

// Host function: the stream reached the operation. Only hands it over, and cannot fail: the
// queue node was made at submission, so this allocates nothing and throws nothing.
void hand_off(void* p) noexcept {
  auto* op = static_cast<AsyncOp*>(p);
  Executor::get().post(op->task);
}

}  // namespace

hipFileError_t stream_register(hipStream_t stream, unsigned flags_in) {
  if ((flags_in & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) != 0) return {hipFileInvalidValue, hipSuccess};
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    (void)hipGetLastError();
    return {hipFileHipDriverError, e};
  }
  StreamTable& t = streams();
  std::lock_guard lock(t.mu);
  if (!t.flags.emplace(stream, flags_in).second) return {hipFileInvalidValue, hipSuccess};
  return {hipFileSuccess, hipSuccess};
}

hipFileError_t stream_deregister(hipStream_t stream) {
  StreamTable& t = streams();
  std::lock_guard lock(t.mu);
  if (t.flags.erase(stream) == 0) return {hipFileInvalidValue, hipSuccess};
  return {hipFileSuccess, hipSuccess};
}

hipFileError_t submit_async(Direction dir, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                            hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                            hipStream_t stream) {
  Driver& driver = Driver::get();
  if (!driver.is_open()) {
    driver.open_implicitly();  // upstream: open, and still refuse this call
    return {hipFileInvalidValue, hipSuccess};
  }
  if (buffer_base == nullptr || size_p == nullptr || file_offset_p == nullptr || buffer_offset_p == nullptr ||
      bytes_p == nullptr)
    return {hipFileInvalidValue, hipSuccess};
  int device = -1;
  if (hipError_t e = gpu::stream_device(stream, device); e != hipSuccess) {
    (void)hipGetLastError();
    return {hipFileHipDriverError, e};
  }
  StreamTable& t = streams();
  unsigned flags_now = 0;  // an unregistered stream is used with no fixed parameters
  {
    std::lock_guard lock(t.mu);
    if (auto it = t.flags.find(stream); it != t.flags.end()) flags_now = it->second;
  }
  if (!driver.files.find(fh)) return {hipFileHandleNotRegistered, hipSuccess};
  // The parameters as they are now: validated now (upstream rejects bad ones at once), and kept
  // where the stream fixed them at registration.
  const std::size_t size = *size_p;
  const hoff_t file_offset = *file_offset_p;
  const hoff_t buffer_offset = *buffer_offset_p;
  if (Status st = check_region(buffer_base, size, file_offset, buffer_offset); !st.ok()) {
    if (st.op == hipFileHipDriverError) return st.to_error();
    return {hipFileInvalidValue, hipSuccess};
  }
  if (size == 0) {
    *bytes_p = 0;
    return {hipFileSuccess, hipSuccess};  // as upstream: nothing to enqueue
  }

  // Everything that can fail without side effects comes first: the executor, the flag word, the
  // operation and its queue node. An error from here on means nothing was enqueued.
  Executor& executor = Executor::get();
  auto op = std::make_unique<AsyncOp>();
  op->dir = dir;
  op->fh = fh;
  op->base = buffer_base;
  op->size_p = size_p;
  op->file_offset_p = file_offset_p;
  op->buffer_offset_p = buffer_offset_p;
  op->bytes_p = bytes_p;
  op->flags = flags_now;
  op->size = size;
  op->file_offset = file_offset;
  op->buffer_offset = buffer_offset;
  AsyncOp* raw = op.get();
  op->task.push_back([raw] { execute(raw); });
  if (hipError_t e = flags().acquire(op->slot); e != hipSuccess) return {hipFileHipDriverError, e};
  const FlagSlot slot = op->slot;

  std::lock_guard order(t.stripe(stream));
  if (hipError_t e = gpu::launch_host_func(stream, hand_off, raw); e != hipSuccess) {
    (void)hipGetLastError();
    flags().signal_and_release(slot);
    return {hipFileHipDriverError, e};
  }
  // From here the executor and this call share the operation (refs): the stream hands it over
  // whatever happens, and this call still signals its decision.
  op.release();
  (void)executor;
  const hipError_t e = gpu::stream_wait_geq32(stream, slot.device, slot.target);
  if (e != hipSuccess) {
    // Without the device-side wait the stream would run ahead of the I/O. No host function
    // blocks the stream instead (CUDA forbids waiting in one on work that uses other streams):
    // the operation is canceled before it can touch anything, and this call fails alone; the
    // next submission tries the wait again.
    raw->decide(Decision::Canceled);
    raw->unref();  // this call's reference
    if (e == hipErrorNotSupported) return {hipFileAsyncNotSupported, hipSuccess};
    return {hipFileHipDriverError, e};
  }
  *bytes_p = 0;  // before the operation may run: it writes the result
  raw->decide(Decision::Armed);
  raw->unref();  // this call's reference: the operation may already be done and gone after it
  return {hipFileSuccess, hipSuccess};
}

void advance_flag_words_for_test(std::uint32_t value) { flags().advance_free_words(value); }

}  // namespace hipfile::engine
