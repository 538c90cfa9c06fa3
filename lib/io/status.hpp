// SPDX-License-Identifier: MIT
// The engine's one error vocabulary: a hipFile op error, the HIP error behind it, or an errno.
// The C shim converts it to hipFileError_t or to an ssize_t I/O return in one place each.
#pragma once

#include <hipfile/hipfile.h>

#include <cerrno>
#include <sys/types.h>

namespace hipfile::engine {

struct Status {
  hipFileOpError_t op = hipFileSuccess;
  hipError_t hip = hipSuccess;
  int sys = 0;  // errno; set only for system-call failures

  bool ok() const noexcept { return op == hipFileSuccess && sys == 0; }
  static Status success() noexcept { return {}; }
  static Status of(hipFileOpError_t op) noexcept { return {op, hipSuccess, 0}; }
  static Status of_hip(hipError_t e) noexcept { return {hipFileHipDriverError, e, 0}; }
  static Status of_errno(int e) noexcept { return {hipFileSuccess, hipSuccess, e}; }

  hipFileError_t to_error() const noexcept {
    if (sys != 0) return {hipFileInternalError, hipSuccess};
    return {op, op == hipFileHipDriverError ? hip : hipSuccess};
  }
  /// I/O return convention: -1 with errno set for system errors, else the negated op error.
  ssize_t to_io_return() const noexcept {
    if (sys != 0) {
      errno = sys;
      return -1;
    }
    return -static_cast<ssize_t>(op);
  }
};

/// Bytes moved, or why not.
struct IoResult {
  ssize_t bytes = 0;
  Status status;
  bool ok() const noexcept { return status.ok(); }
  ssize_t to_io_return() const noexcept { return ok() ? bytes : status.to_io_return(); }
};

}  // namespace hipfile::engine
