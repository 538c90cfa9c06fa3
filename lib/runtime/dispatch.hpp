// SPDX-License-Identifier: MIT
// One synchronous read or write as the C API defines it: argument and bounds checks, buffer
// resolution (registered, unregistered device, host, managed), then dispatch to a backend: the
// loaded fastpath when it serves the request, the staging engine otherwise and for the rest.
// Batch and async I/O come through here too, so every path applies the same rules.
#pragma once

#include <sys/types.h>

#include <cstddef>

#include "io/request.hpp"
#include "io/status.hpp"
#include "runtime/file_table.hpp"

namespace hipfile::engine {

/// How a request is ordered against GPU work the application queued before it.
enum class Ordering {
  /// Run when called. For the executor of async and batch I/O: a stream operation is already
  /// ordered by its stream, and waiting on the NULL stream there could wait on that very stream.
  None,
  /// First wait for the device's NULL stream, as a synchronous hipMemcpy would. The engine's
  /// lanes are non-blocking streams, so without this a write could copy device memory that an
  /// earlier NULL-stream copy or kernel has not finished producing (CUDA returns from a
  /// pageable-source hipMemcpy before the data has reached the device).
  AfterNullStream,
};

/// The arguments of every read and write, sync, async or batch, checked by one rule: a buffer,
/// offsets that are not negative, and a size and file range that fit in a file offset.
bool valid_arguments(const void* base, std::size_t size, off_t file_offset, off_t buffer_offset) noexcept;

/// The submission checks of async and batch I/O: valid_arguments, and [base + buffer_offset,
/// + size) within the registration or allocation holding `base`, without the I/O. Returned as
/// upstream reports them at submission: a HIP failure as itself, anything else InvalidValue.
/// `device`, when given, is set to the device owning the memory, -1 for CPU-accessible memory.
Status check_region(const void* base, std::size_t size, off_t file_offset, off_t buffer_offset,
                    int* device = nullptr);

/// The client's descriptor allows the direction, and a write would land where it is asked to.
Status check_access(Direction dir, const File& file);

/// Never touches memory outside [buffer_base + buffer_offset, + size) or the file range.
IoResult do_io(Direction dir, FileId fh, const void* buffer_base, std::size_t size,
               off_t file_offset, off_t buffer_offset, Ordering ordering = Ordering::None);

}  // namespace hipfile::engine
