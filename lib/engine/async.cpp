// SPDX-License-Identifier: MIT
#include "engine/async.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <unordered_map>

#include "engine/driver.hpp"
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
  unsigned n = 0;
  if (const char* v = std::getenv("HIPFILE_ASYNC_THREADS")) n = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
  if (n == 0 || n > 256) n = std::clamp(2 * std::max(1u, std::thread::hardware_concurrency()), 8u, 32u);
  threads_.reserve(n);
  for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { main(); });
  for (auto& t : threads_) t.detach();
}

void Executor::post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void Executor::main() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return !queue_.empty(); });
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (...) {
      // A task reports its own failure; nothing may take the thread down.
    }
  }
}

namespace {

// ---- Flag words -----------------------------------------------------------------------------------
// Pinned, device-mapped 32-bit words. A word only ever grows: each use waits for "word >= target"
// with target = previous value + 1, so a slot is reusable as soon as its operation completes
// (a stream still waiting on the old target is satisfied by any later value too).

struct FlagSlot {
  std::uint32_t* host = nullptr;
  void* device = nullptr;
  std::uint32_t target = 0;
  std::uint32_t index = 0;
};

class FlagPool {
 public:
  static constexpr std::size_t kBlockWords = 1024;

  bool acquire(FlagSlot& out) {
    std::lock_guard lock(mu_);
    if (free_.empty() && !grow()) return false;
    const std::uint32_t i = free_.back();
    free_.pop_back();
    Word& w = words_[i];
    out.host = w.host;
    out.device = w.device;
    out.index = i;
    out.target = ++w.value;
    return true;
  }
  /// Raises the word to the slot's target (the stream proceeds) and frees the slot.
  void signal_and_release(const FlagSlot& s) {
    std::atomic_ref<std::uint32_t>(*s.host).store(s.target, std::memory_order_release);
    std::lock_guard lock(mu_);
    free_.push_back(s.index);
  }

 private:
  struct Word {
    std::uint32_t* host;
    void* device;
    std::uint32_t value;
  };
  bool grow() {  // called with mu_ held; blocks are never freed (a stream may still read them)
    if (failed_) return false;
    void* host = nullptr;
    void* device = nullptr;
    if (gpu::alloc_host_mapped(kBlockWords * sizeof(std::uint32_t), host, device) != hipSuccess) {
      failed_ = true;
      return false;
    }
    auto* h = static_cast<std::uint32_t*>(host);
    auto* d = static_cast<std::uint32_t*>(device);
    for (std::size_t k = 0; k < kBlockWords; ++k) {
      std::atomic_ref<std::uint32_t>(h[k]).store(0, std::memory_order_relaxed);
      free_.push_back(static_cast<std::uint32_t>(words_.size()));
      words_.push_back(Word{h + k, d + k, 0});
    }
    return true;
  }
  std::mutex mu_;
  std::vector<Word> words_;
  std::vector<std::uint32_t> free_;
  bool failed_ = false;
};

FlagPool& flags() {
  static FlagPool* p = new FlagPool;
  return *p;
}

// Set when the runtime says the device cannot do stream memory operations at all: every later
// operation goes straight to the blocking fallback.
std::atomic<bool> wait_value_unsupported{false};

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
  bool has_slot = false;
  FlagSlot slot;

  std::atomic<int> refs{1};
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;

  void unref() {
    if (refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
};

void execute(AsyncOp* op) {
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
  } else {
    try {
      r = do_io(op->dir, op->fh, op->base, size, file_offset, buffer_offset);
    } catch (...) {
      r.status = Status::of(hipFileInternalError);
    }
  }
  *op->bytes_p = async_result(r);
  if (op->has_slot) flags().signal_and_release(op->slot);
  {
    std::lock_guard lock(op->mu);
    op->done = true;
  }
  op->done_cv.notify_all();
  op->unref();
}

// Host function: the stream reached the operation. Only hands it over.
void hand_off(void* p) {
  auto* op = static_cast<AsyncOp*>(p);
  Executor::get().post([op] { execute(op); });
}

// Host function of the fallback: holds the stream until the operation is done.
void block_until_done(void* p) {
  auto* op = static_cast<AsyncOp*>(p);
  {
    std::unique_lock lock(op->mu);
    op->done_cv.wait(lock, [&] { return op->done; });
  }
  op->unref();
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
  *bytes_p = 0;
  if (size == 0) return {hipFileSuccess, hipSuccess};  // as upstream: nothing to enqueue

  auto* op = new AsyncOp;
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
  if (!wait_value_unsupported.load(std::memory_order_relaxed)) op->has_slot = flags().acquire(op->slot);
  const bool use_wait = op->has_slot;
  const FlagSlot slot = op->slot;  // op may be gone once the hand-off is enqueued

  // Two references: the executor's (dropped when the operation completes) and this call's, so
  // that `op` stays valid below even if the stream reaches it and it completes at once.
  op->refs.store(2, std::memory_order_relaxed);
  std::lock_guard order(t.stripe(stream));
  if (hipError_t e = gpu::launch_host_func(stream, hand_off, op); e != hipSuccess) {
    (void)hipGetLastError();
    if (op->has_slot) flags().signal_and_release(op->slot);
    delete op;
    return {hipFileHipDriverError, e};
  }
  hipFileError_t result{hipFileSuccess, hipSuccess};
  bool waiting = false;
  if (use_wait) {
    const hipError_t e = gpu::stream_wait_geq32(stream, slot.device, slot.target);
    waiting = e == hipSuccess;
    if (e == hipErrorNotSupported) wait_value_unsupported.store(true, std::memory_order_relaxed);
  }
  if (!waiting) {
    // Fallback: a host function that blocks the stream until the executor is done. The hand-off
    // cannot be taken back, so the operation runs even if this enqueue fails (reported).
    op->refs.fetch_add(1, std::memory_order_relaxed);  // the waiter's
    if (hipError_t e = gpu::launch_host_func(stream, block_until_done, op); e != hipSuccess) {
      (void)hipGetLastError();
      op->unref();
      result = {hipFileHipDriverError, e};
    }
  }
  op->unref();  // this call's
  return result;
}

}  // namespace hipfile::engine
