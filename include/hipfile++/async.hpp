// SPDX-License-Identifier: MIT
/**
 * @file async.hpp
 * @brief Stream-ordered reads and writes of a File (hipFileReadAsync / hipFileWriteAsync).
 *
 * AsyncIo is the C++ form: `auto op = hipfile::AsyncIo::read(file, buf.as<float>(), offset,
 * stream);` enqueues the read on the stream; kernels enqueued after it see the data; op.get()
 * (or result() once the stream is known to have passed) gives the count or the Error. It is
 * movable (the words the library reads and writes live on the heap), so it fits a std::vector.
 * A negative offset or a range beyond INT64_MAX is refused before the C call with
 * hipFileInvalidValue, as hipFileReadAsync refuses it, the message naming the offset.
 *
 * The raw form below it: an AsyncOp owns the words the C API reads when the stream reaches the operation (size, file
 * offset, buffer offset) and the one it writes then (bytes). It is immovable, because the
 * library keeps their addresses until the operation has run: keep it alive until the stream has
 * passed it (hipStreamSynchronize, an event, ...), then read result().
 */
#pragma once

#include <hipfile/hipfile.h>

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

#include "error.hpp"
#include "file.hpp"
#include "registration.hpp"
#include "span.hpp"

namespace hipfile {

class AsyncOp {
 public:
  AsyncOp() noexcept = default;
  AsyncOp(const AsyncOp&) = delete;
  AsyncOp& operator=(const AsyncOp&) = delete;
  AsyncOp(AsyncOp&&) = delete;
  AsyncOp& operator=(AsyncOp&&) = delete;

  /// The deferred parameters: change them before the stream reaches the operation (a size may
  /// shrink, never grow), unless the stream was registered with the matching FIXED_* flag.
  std::size_t size = 0;
  hoff_t file_offset = 0;
  hoff_t buffer_offset = 0;

  /// After the stream has passed the operation: bytes moved, or the error. A negative bytes
  /// word is -errno (-1 .. -4095) or -hipFileOpError (see doc/async-batch.md).
  [[nodiscard]] Result<std::size_t> result() const noexcept {
    if (bytes >= 0) return static_cast<std::size_t>(bytes);
    return unexpected(Error::from_bytes_result(bytes));
  }
  /// The raw word the C API writes.
  ssize_t bytes = 0;
};

/**
 * @brief One stream-ordered read or write (hipFileReadAsync / hipFileWriteAsync) as an owner.
 *
 * The parameters are fixed at creation (no fields to set). An event recorded after the
 * operation tells when the stream has passed it. Lifetime: the File and the memory must stay
 * alive until then. **Destroying (or assigning over) an AsyncIo whose operation the stream has
 * not passed waits for it** (hipEventSynchronize), because the library writes the result into
 * memory this object owns. Thread safety: one object must not be used from two threads at once.
 */
class AsyncIo {
 public:
  /// Empty: no operation (get() reports hipFileInvalidValue).
  AsyncIo() noexcept = default;

  /// Enqueues a read of dst.size_bytes() bytes at @p file_offset into @p dst on @p stream.
  /// @return the operation, or the Error of the submission (nothing was enqueued then).
  template <Writable T, std::size_t N>
  [[nodiscard]] static Result<AsyncIo> read(const File& file, std::span<T, N> dst, Offset file_offset,
                                            hipStream_t stream) noexcept {
    return start(true, file, dst.data(), dst.size_bytes(), file_offset, 0, stream);
  }
  /// Enqueues a write of src.size_bytes() bytes from @p src at @p file_offset on @p stream.
  template <Transferable T, std::size_t N>
  [[nodiscard]] static Result<AsyncIo> write(const File& file, std::span<T, N> src, Offset file_offset,
                                             hipStream_t stream) noexcept {
    return start(false, file, src.data(), src.size_bytes(), file_offset, 0, stream);
  }
  /// read() into @p dst, a subspan of reg.region() (registration base + offset).
  template <Writable T, std::size_t N>
  [[nodiscard]] static Result<AsyncIo> read(const File& file, const Registration& reg, std::span<T, N> dst,
                                            Offset file_offset, hipStream_t stream) noexcept {
    return start_registered(true, file, reg, detail::writable_bytes(dst), file_offset, stream);
  }
  /// write() from @p src, a subspan of reg.region().
  template <Transferable T, std::size_t N>
  [[nodiscard]] static Result<AsyncIo> write(const File& file, const Registration& reg, std::span<T, N> src,
                                             Offset file_offset, hipStream_t stream) noexcept {
    return start_registered(false, file, reg, detail::readable_bytes(src), file_offset, stream);
  }

  AsyncIo(AsyncIo&& o) noexcept
      : words_(std::move(o.words_)), event_(std::exchange(o.event_, nullptr)), stream_(std::exchange(o.stream_, nullptr)),
        ctx_(std::move(o.ctx_)) {}
  AsyncIo& operator=(AsyncIo&& o) noexcept {
    if (this != &o) {
      reset();
      words_ = std::move(o.words_);
      event_ = std::exchange(o.event_, nullptr);
      stream_ = std::exchange(o.stream_, nullptr);
      ctx_ = std::move(o.ctx_);
    }
    return *this;
  }
  AsyncIo(const AsyncIo&) = delete;
  AsyncIo& operator=(const AsyncIo&) = delete;
  /// Waits for the operation if the stream has not passed it (see the class comment).
  ~AsyncIo() { reset(); }

  /// True while an operation is held.
  explicit operator bool() const noexcept { return words_ != nullptr; }

  /// True once the stream has passed the operation (hipEventQuery); never waits.
  [[nodiscard]] bool done() const noexcept {
    if (!words_) return false;
    return event_ ? hipEventQuery(event_) == hipSuccess : hipStreamQuery(stream_) == hipSuccess;
  }
  /// Blocks until the stream has passed the operation. @return the HIP error of the wait.
  [[nodiscard]] Result<void> wait() const noexcept {
    if (!words_) return unexpected(Error::from_op(hipFileInvalidValue).in(ctx_));
    const hipError_t e = event_ ? hipEventSynchronize(event_) : hipStreamSynchronize(stream_);
    if (e != hipSuccess) return unexpected(Error::from_hip(e).in(ctx_));
    return {};
  }
  /// wait(), then result().
  [[nodiscard]] Result<std::size_t> get() const noexcept {
    if (auto w = wait(); !w) return unexpected(w.error());
    return result();
  }
  /// The result, valid once the stream has passed the operation (after done() is true, an
  /// event or a synchronisation of your own): bytes moved, or the Error.
  [[nodiscard]] Result<std::size_t> result() const noexcept {
    if (!words_) return unexpected(Error::from_op(hipFileInvalidValue).in(ctx_));
    if (words_->bytes >= 0) return static_cast<std::size_t>(words_->bytes);
    return unexpected(Error::from_bytes_result(words_->bytes).in(ctx_));
  }

  /// Waits for the operation if needed, then releases it; the object becomes empty.
  void reset() noexcept {
    if (!words_) return;
    (void)wait();
    if (event_) (void)hipEventDestroy(std::exchange(event_, nullptr));
    words_.reset();
    stream_ = nullptr;
  }

 private:
  struct Words {  // what the library reads when the stream reaches the operation, and writes
    std::size_t size = 0;
    hoff_t file_offset = 0;
    hoff_t buffer_offset = 0;
    ssize_t bytes = 0;
  };

  static Result<AsyncIo> start(bool is_read, const File& file, const void* base, std::size_t size, Offset off,
                               Offset buffer_offset, hipStream_t stream) noexcept {
    const Context ctx = file.context(is_read ? Operation::read : Operation::write, off, size);
    // Refused as hipFileReadAsync/WriteAsync would refuse it: hipFileInvalidValue.
    if (!detail::valid_range(off, size)) return unexpected(detail::bad_range_op(off, size).in(ctx));
    AsyncIo io;
    io.words_.reset(new (std::nothrow) Words{size, off, buffer_offset, 0});
    if (!io.words_) return unexpected(Error::from_errno(ENOMEM).in(ctx));
    io.stream_ = stream;
    io.ctx_ = ctx;
    Words& w = *io.words_;
    void* b = const_cast<void*>(base);
    const hipFileError_t s =
        is_read ? hipFileReadAsync(file.handle(), b, &w.size, &w.file_offset, &w.buffer_offset, &w.bytes, stream)
                : hipFileWriteAsync(file.handle(), b, &w.size, &w.file_offset, &w.buffer_offset, &w.bytes, stream);
    if (s.err != hipFileSuccess) {
      io.words_.reset();  // nothing was enqueued: nothing to wait for
      const Error e = detail::explain_overrun(Error::from_status(s), static_cast<const std::byte*>(base) + buffer_offset, size);
      return unexpected(detail::stale_handle(e, file.handle()).in(ctx));
    }
    // Without an event (creation failed), done() and wait() fall back to the whole stream.
    if (hipEventCreateWithFlags(&io.event_, hipEventDisableTiming) != hipSuccess) io.event_ = nullptr;
    if (io.event_ && hipEventRecord(io.event_, stream) != hipSuccess) {
      (void)hipEventDestroy(io.event_);
      io.event_ = nullptr;
    }
    return io;
  }
  static Result<AsyncIo> start_registered(bool is_read, const File& file, const Registration& reg,
                                          std::span<const std::byte> s, Offset off, hipStream_t stream) noexcept {
    const Context ctx = file.context(is_read ? Operation::read : Operation::write, off, s.size());
    if (!reg) return unexpected(Error::from_op(hipFileMemoryNotRegistered).in(ctx));
    if (!reg.contains(s)) return unexpected(detail::outside_registration(reg, s).in(ctx));
    return start(is_read, file, reg.base(), s.size(), off, reg.offset_of(s), stream);
  }

  std::unique_ptr<Words> words_;
  hipEvent_t event_ = nullptr;
  hipStream_t stream_ = nullptr;
  Context ctx_;
};

/// Enqueues a read of op.size bytes at op.file_offset into buffer + op.buffer_offset on @p stream.
[[nodiscard]] inline Result<void> read_async(const File& file, void* buffer, AsyncOp& op,
                                             hipStream_t stream) noexcept {
  const hipFileError_t s = hipFileReadAsync(file.handle(), buffer, &op.size, &op.file_offset, &op.buffer_offset,
                                            &op.bytes, stream);
  if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
  return {};
}

/// Enqueues a write of op.size bytes from buffer + op.buffer_offset at op.file_offset on @p stream.
[[nodiscard]] inline Result<void> write_async(const File& file, void* buffer, AsyncOp& op,
                                              hipStream_t stream) noexcept {
  const hipFileError_t s = hipFileWriteAsync(file.handle(), buffer, &op.size, &op.file_offset, &op.buffer_offset,
                                             &op.bytes, stream);
  if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
  return {};
}

/// hipFileStreamRegister as a Result.
[[nodiscard]] inline Result<void> register_stream(hipStream_t stream, unsigned flags) noexcept {
  const hipFileError_t s = hipFileStreamRegister(stream, flags);
  if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
  return {};
}

/// hipFileStreamDeregister as a Result.
[[nodiscard]] inline Result<void> deregister_stream(hipStream_t stream) noexcept {
  const hipFileError_t s = hipFileStreamDeregister(stream);
  if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
  return {};
}

}  // namespace hipfile
