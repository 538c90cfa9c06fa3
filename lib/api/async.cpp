// SPDX-License-Identifier: MIT
// Stream-ordered I/O: see runtime/async.hpp for the design, runtime/dispatch.hpp for the bytes-result convention.
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/async.hpp"

using hipfile::api::guarded;
using hipfile::engine::Direction;

extern "C" {

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                            hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                            ssize_t* bytes_read_p, hipStream_t stream) {
  return guarded([&] {
    return hipfile::api::to_error(hipfile::engine::submit_async(Direction::Read, fh, buffer_base, size_p, file_offset_p,
                                         buffer_offset_p, bytes_read_p, stream));
  });
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void* buffer_base, size_t* size_p,
                                             hoff_t* file_offset_p, hoff_t* buffer_offset_p,
                                             ssize_t* bytes_written_p, hipStream_t stream) {
  return guarded([&] {
    return hipfile::api::to_error(hipfile::engine::submit_async(Direction::Write, fh, buffer_base, size_p, file_offset_p,
                                         buffer_offset_p, bytes_written_p, stream));
  });
}

HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags) {
  return guarded([&] { return hipfile::api::to_error(hipfile::engine::stream_register(stream, flags)); });
}

HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream) {
  return guarded([&] { return hipfile::api::to_error(hipfile::engine::stream_deregister(stream)); });
}

}  // extern "C"
