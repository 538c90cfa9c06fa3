// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "engine/io.hpp"

using hipfile::api::guarded_io;
using hipfile::engine::Direction;
using hipfile::engine::do_io;
using hipfile::engine::Ordering;

extern "C" {

HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void* buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset) {
  return guarded_io([&] {
    return do_io(Direction::Read, fh, buffer_base, size, file_offset, buffer_offset, Ordering::AfterNullStream)
        .to_io_return();
  });
}

HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void* buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset) {
  return guarded_io([&] {
    return do_io(Direction::Write, fh, buffer_base, size, file_offset, buffer_offset, Ordering::AfterNullStream)
        .to_io_return();
  });
}

}  // extern "C"
