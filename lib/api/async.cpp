// SPDX-License-Identifier: MIT
// Stream-ordered I/O: see runtime/async.hpp for the design. Here: the C arguments (stream flags,
// handles, *bytes_p by the bytes-result convention of api/status.hpp).
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/async.hpp"

using hipfile::api::guarded;
using hipfile::engine::Direction;

namespace {

using hipfile::engine::AsyncArgs;
using hipfile::engine::AsyncDone;
using hipfile::engine::StreamFixed;

// The result lands in *bytes_p by the bytes-result convention; no result holder without one.
AsyncDone store_bytes(ssize_t* bytes_p) {
  if (bytes_p == nullptr) return nullptr;
  return [bytes_p](const hipfile::engine::IoResult& r) { *bytes_p = hipfile::api::bytes_result(r); };
}

hipFileError_t submit(Direction dir, hipFileHandle_t fh, void* buffer_base, size_t* size_p, hoff_t* file_offset_p,
                      hoff_t* buffer_offset_p, ssize_t* bytes_p, hipStream_t stream) {
  const AsyncArgs args{size_p, file_offset_p, buffer_offset_p};
  return hipfile::api::to_error(hipfile::engine::submit_async(dir, hipfile::api::file_id(fh), buffer_base, args,
                                                              store_bytes(bytes_p), stream));
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                            hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                            ssize_t* bytes_read_p, hipStream_t stream) {
  return guarded([&] {
    return submit(Direction::Read, fh, buffer_base, size_p, file_offset_p, buffer_offset_p, bytes_read_p, stream);
  });
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                             hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                             ssize_t* bytes_written_p, hipStream_t stream) {
  return guarded([&] {
    return submit(Direction::Write, fh, buffer_base, size_p, file_offset_p, buffer_offset_p, bytes_written_p,
                  stream);
  });
}

HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags) {
  return guarded([&]() -> hipFileError_t {
    if ((flags & ~static_cast<unsigned>(HIPFILE_STREAM_FLAGS_MASK)) != 0) return {hipFileInvalidValue, hipSuccess};
    const StreamFixed fixed{(flags & HIPFILE_STREAM_FIXED_FILE_SIZE) != 0, (flags & HIPFILE_STREAM_FIXED_FILE_OFFSET) != 0,
                            (flags & HIPFILE_STREAM_FIXED_BUF_OFFSET) != 0};
    return hipfile::api::to_error(hipfile::engine::stream_register(stream, fixed));
  });
}

HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream) {
  return guarded([&] { return hipfile::api::to_error(hipfile::engine::stream_deregister(stream)); });
}

}  // extern "C"
