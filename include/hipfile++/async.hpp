// SPDX-License-Identifier: MIT
/**
 * @file async.hpp
 * @brief Stream-ordered reads and writes of a File (hipFileReadAsync / hipFileWriteAsync).
 *
 * An AsyncOp owns the words the C API reads when the stream reaches the operation (size, file
 * offset, buffer offset) and the one it writes then (bytes). It is immovable, because the
 * library keeps their addresses until the operation has run: keep it alive until the stream has
 * passed it (hipStreamSynchronize, an event, ...), then read result().
 */
#pragma once

#include <hipfile/hipfile.h>

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cstddef>

#include "error.hpp"
#include "file.hpp"

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
