// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include <cerrno>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/dispatch.hpp"

using hipfile::api::guarded_io;
using hipfile::api::to_io_return;
using hipfile::engine::Direction;
using hipfile::engine::do_io;
using hipfile::engine::Ordering;

namespace {

// hipFile 0.4 and later: a negative file or buffer offset is a system error, -1 with errno
// EINVAL (0.2 returned -hipFileInvalidValue), checked before anything else.
bool negative(hoff_t file_offset, hoff_t buffer_offset) {
  if (file_offset >= 0 && buffer_offset >= 0) return false;
  errno = EINVAL;
  return true;
}

}  // namespace

extern "C" {

HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void* buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset) {
  if (negative(file_offset, buffer_offset)) return -1;
  return guarded_io([&] {
    return to_io_return(do_io(Direction::Read, hipfile::api::file_id(fh), buffer_base, size, file_offset, buffer_offset, Ordering::AfterNullStream));
  });
}

HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void* buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset) {
  if (negative(file_offset, buffer_offset)) return -1;
  return guarded_io([&] {
    return to_io_return(do_io(Direction::Write, hipfile::api::file_id(fh), buffer_base, size, file_offset, buffer_offset, Ordering::AfterNullStream));
  });
}

}  // extern "C"
