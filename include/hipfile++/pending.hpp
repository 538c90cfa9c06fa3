// SPDX-License-Identifier: MIT
/**
 * @file pending.hpp
 * @brief hipfile::Pending, one read or write in flight (File::read_async / write_async).
 *
 * Built on the public C batch API: each Pending owns a one-entry hipFile batch, so the I/O runs
 * on the library's executor (no thread per call, no allocation per byte) and the Pending holds
 * no address the library keeps, which is why it can be moved and stored in a std::vector.
 * Many may be in flight from one thread; collect them with get() in any order.
 */
#pragma once

#include <hipfile/hipfile.h>

#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <optional>
#include <utility>

#include "error.hpp"
#include "span.hpp"

namespace hipfile {

/// One batch operation (a read or write of @p size bytes at @p file_offset of @p fh, from or
/// into @p base + @p buffer_offset): the C struct with its fields named.
[[nodiscard]] inline hipFileIOParams_t batch_op(hipFileOpcode_t opcode, hipFileHandle_t fh, const void* base,
                                                std::size_t size, Offset file_offset, Offset buffer_offset = 0,
                                                void* cookie = nullptr) noexcept {
  hipFileIOParams_t p{};
  p.mode = hipFileBatch;
  p.u.batch.devPtr_base = const_cast<void*>(base);
  p.u.batch.file_offset = file_offset;
  p.u.batch.devPtr_offset = buffer_offset;
  p.u.batch.size = size;
  p.fh = fh;
  p.opcode = opcode;
  p.cookie = cookie;
  return p;
}

namespace detail {
/// After hipFileDriverClose underneath a live File, the C calls report EINVAL (upstream: no
/// driver is an errno) or DriverNotInitialized; the truth for a File's handle is that it is no
/// longer registered, so that is what the caller reads.
[[nodiscard]] inline Error stale_handle(Error e, hipFileHandle_t handle) noexcept {
  const bool no_driver = (e.is_system() && e.sys_errno() == EINVAL) || e.op() == hipFileDriverNotInitialized;
  if (no_driver && handle != nullptr && hipFileUseCount() == 0) return Error::from_op(hipFileHandleNotRegistered).in(e.context());
  return e;
}
}  // namespace detail

template <class T = std::size_t>
class Pending;

/**
 * @brief A read or write in flight; get() gives its byte count (short only at end of file)
 *        or its Error.
 *
 * Lifetime: the File and the memory must stay alive until the operation has finished (get(),
 * wait(), or a wait_for() that returned true) or the Pending is destroyed. **Destroying (or
 * assigning over) an unfinished Pending cancels the operation if it has not started and
 * waits for it if it runs**, so afterwards the library no longer touches the memory; whether
 * a canceled write reached the file is then unknown.
 *
 * Ownership: move-only; the empty (default or moved-from) state has no operation and
 * valid() is false. Thread safety: one object must not be used from two threads at once;
 * distinct Pendings may be waited on from any threads.
 */
template <>
class Pending<std::size_t> {
 public:
  using value_type = std::size_t;

  /// Empty: no operation (valid() is false; get() reports hipFileInvalidValue).
  Pending() noexcept = default;

  /// An operation that has finished already (a zero-length request, or one refused before
  /// submission): get() returns @p r at once.
  [[nodiscard]] static Pending finished(Result<std::size_t> r) noexcept {
    Pending p;
    p.result_.emplace(std::move(r));
    return p;
  }

  /**
   * @brief Submits one batch operation (batch_op() names the fields). Failures of setup or
   *        submission become the Pending's result; every Error it reports carries @p ctx.
   */
  [[nodiscard]] static Pending submit(const hipFileIOParams_t& op, Context ctx = {}) noexcept {
    if (op.u.batch.size == 0) return finished(std::size_t{0});
    Pending p;
    p.ctx_ = std::move(ctx);
    hipFileBatchHandle_t batch = nullptr;
    p.fh_ = op.fh;
    if (auto r = check(hipFileBatchIOSetUp(&batch, 1)); !r) {
      p.finish(unexpected(r.error()));
      return p;
    }
    auto params = op;
    if (auto r = check(hipFileBatchIOSubmit(batch, 1, &params, 0)); !r) {
      hipFileBatchIODestroy(batch);
      p.finish(unexpected(r.error()));
      return p;
    }
    p.batch_ = batch;
    return p;
  }

  Pending(Pending&& o) noexcept
      : batch_(std::exchange(o.batch_, nullptr)), result_(std::move(o.result_)), ctx_(std::move(o.ctx_)),
        fh_(std::exchange(o.fh_, nullptr)) {
    o.result_.reset();
  }
  Pending& operator=(Pending&& o) noexcept {
    if (this != &o) {
      reset();
      batch_ = std::exchange(o.batch_, nullptr);
      result_ = std::move(o.result_);
      ctx_ = std::move(o.ctx_);
      fh_ = std::exchange(o.fh_, nullptr);
      o.result_.reset();
    }
    return *this;
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  /// Cancels or waits for an unfinished operation (see the class comment); never throws.
  ~Pending() { reset(); }

  /// True while this object holds an operation or its result.
  [[nodiscard]] bool valid() const noexcept { return batch_ != nullptr || result_.has_value(); }
  explicit operator bool() const noexcept { return valid(); }

  /// True once the result is known, without waiting (polls the library).
  [[nodiscard]] bool is_ready() noexcept { return collect(std::chrono::nanoseconds(0)); }

  /// Blocks until the operation has finished.
  void wait() noexcept { (void)collect(std::nullopt); }

  /// Blocks up to @p timeout; @return true when the operation has finished.
  template <class Rep, class Period>
  [[nodiscard]] bool wait_for(std::chrono::duration<Rep, Period> timeout) noexcept {
    return collect(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout));
  }

  /**
   * @brief Waits, then returns the result: bytes moved, or the Error. May be called again
   *        (the result stays until the Pending is destroyed or reset).
   */
  [[nodiscard]] Result<std::size_t> get() noexcept {
    if (!valid()) return unexpected(Error::from_op(hipFileInvalidValue).in(ctx_));
    wait();
    return *result_;
  }

  /// Cancels or waits for the operation now (see the class comment); the object becomes empty.
  void reset() noexcept {
    if (hipFileBatchHandle_t b = std::exchange(batch_, nullptr)) hipFileBatchIODestroy(b);
    result_.reset();
    ctx_ = Context{};
    fh_ = nullptr;
  }

  /// The bytes-result of a finished batch event as a Result (see doc/async-batch.md).
  [[nodiscard]] static Result<std::size_t> decode(const hipFileIOEvents_t& ev) noexcept {
    if (ev.status == hipFileComplete) return static_cast<std::size_t>(ev.ret);
    if (ev.status == hipFileCanceled) return unexpected(Error::from_errno(ECANCELED));
    const auto ret = static_cast<ssize_t>(ev.ret);
    if (ret >= 0) return unexpected(Error::from_op(hipFileIOMaxError));
    return unexpected(Error::from_bytes_result(ret));
  }

 private:
  // Waits for the one event (nullopt: without limit); on arrival stores the result and
  // destroys the batch at once, so the library's record is not held while the result is.
  bool collect(std::optional<std::chrono::nanoseconds> timeout) noexcept {
    if (result_) return true;
    if (!batch_) return false;
    timespec ts{};
    if (timeout) {
      const auto ns = timeout->count() < 0 ? 0 : timeout->count();
      ts.tv_sec = static_cast<time_t>(ns / 1000000000);
      ts.tv_nsec = static_cast<long>(ns % 1000000000);
    }
    hipFileIOEvents_t ev{};
    unsigned nr = 1;
    const hipFileError_t s = hipFileBatchIOGetStatus(batch_, 1, &nr, &ev, timeout ? &ts : nullptr);
    if (s.err != hipFileSuccess) {
      finish(unexpected(Error::from_status(s).in(Operation::batch)));
    } else if (nr == 0) {
      return false;
    } else {
      finish(decode(ev));
    }
    hipFileBatchIODestroy(std::exchange(batch_, nullptr));
    return true;
  }

  // Stores the result; an Error gets this operation's context.
  void finish(Result<std::size_t> r) noexcept {
    if (r) {
      result_.emplace(std::move(r));
    } else {
      result_.emplace(unexpected(detail::stale_handle(r.error(), fh_).in(ctx_)));
    }
  }

  hipFileBatchHandle_t batch_ = nullptr;
  std::optional<Result<std::size_t>> result_;
  Context ctx_;                    // what an Error of this operation says it was
  hipFileHandle_t fh_ = nullptr;  // the File's handle, to tell a driver closed underneath
};

}  // namespace hipfile
