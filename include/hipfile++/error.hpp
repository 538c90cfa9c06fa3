// SPDX-License-Identifier: MIT
/**
 * @file error.hpp
 * @brief hipfile::Error, the one error vocabulary of hipfile++, and hipfile::Result<T>.
 *
 * Every fallible hipfile++ call returns `Result<T>` (`std::expected<T, Error>`); nothing throws.
 * An Error carries what the C API can report: the hipFile op error, the HIP runtime error
 * behind a hipFileHipDriverError, and the errno behind a system failure (an I/O call returning
 * -1, or a failed open/close/fstat). It converts to and from the C API's two return
 * conventions, `hipFileError_t` and the `ssize_t` of hipFileRead/Write, so C++ and C code can
 * share one error path.
 *
 * Thread safety: Error is a small value type (no heap); copies are independent.
 */
#pragma once

#include <hipfile/hipfile.h>

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <expected>
#include <string>

#include "detail/hip_names.hpp"

namespace hipfile {

/**
 * @brief One failed hipFile-level operation: op error + HIP error + errno.
 *
 * Invariant: `op()` is never hipFileSuccess (a conversion from a successful status yields
 * hipFileInternalError, because a success is not an error). `hip()` is hipSuccess unless a
 * HIP runtime call failed; `sys_errno()` is 0 unless a system call failed.
 */
class Error {
 public:
  /// hipFileInternalError with no HIP error and no errno.
  constexpr Error() noexcept = default;

  /// An op error, optionally with the HIP error and errno behind it.
  constexpr explicit Error(hipFileOpError_t op, hipError_t hip = hipSuccess, int sys_errno = 0) noexcept
      : op_(op == hipFileSuccess ? hipFileInternalError : op), hip_(hip), errno_(sys_errno) {}

  /// From a C status `{err, hip_drv_err}` (as returned by every non-I/O C call).
  [[nodiscard]] static constexpr Error from_status(hipFileError_t s) noexcept {
    return Error(s.err, s.hip_drv_err);
  }
  /// A hipFile op error alone.
  [[nodiscard]] static constexpr Error from_op(hipFileOpError_t op) noexcept { return Error(op); }
  /// A HIP runtime failure: op is hipFileHipDriverError, as the C API reports it.
  [[nodiscard]] static constexpr Error from_hip(hipError_t e) noexcept {
    return Error(hipFileHipDriverError, e);
  }
  /// A system call failure. The op defaults to hipFileInternalError (cuFile has no op error
  /// for "see errno"); `is_system()` tells such errors apart.
  [[nodiscard]] static constexpr Error from_errno(int e, hipFileOpError_t op = hipFileInternalError) noexcept {
    return Error(op, hipSuccess, e);
  }
  /// From the current value of errno.
  [[nodiscard]] static Error last_errno(hipFileOpError_t op = hipFileInternalError) noexcept {
    return from_errno(errno, op);
  }
  /**
   * @brief From a negative `ssize_t` returned by hipFileRead/hipFileWrite.
   *
   * -1 means errno (read here, so call this right after the C call); `-op` (below
   * -HIPFILE_BASE_ERR) is an op error; a value between -2 and -4999 is upstream hipFile's raw
   * `-hipError_t` and becomes a HIP error. `-hipFileHipDriverError` does not carry the HIP
   * error, so hip() is hipErrorUnknown then. A non-negative @p r is not an error: the result
   * is hipFileInternalError.
   */
  [[nodiscard]] static Error from_io_return(ssize_t r) noexcept {
    if (r == -1) return last_errno();
    if (r < -HIPFILE_BASE_ERR && r > -(HIPFILE_BASE_ERR + 1000)) {
      const auto op = static_cast<hipFileOpError_t>(-r);
      return op == hipFileHipDriverError ? Error(op, hipErrorUnknown) : Error(op);
    }
    if (r < -1 && r > -HIPFILE_BASE_ERR) return from_hip(static_cast<hipError_t>(-r));
    return Error();
  }

  /**
   * @brief From the bytes-result convention of batch events (`ret`, cast to ssize_t) and of
   *        async operations (`*bytes_p`): `-1 .. -4095` is `-errno` of the failed system call
   *        (-EBADF = -9 is EBADF, not a HIP error), `<= -HIPFILE_BASE_ERR` is `-hipFileOpError`.
   *        (from_io_return is for hipFileRead/Write only, where -1 means "see errno".)
   *        A non-negative @p r is not an error: the result is hipFileInternalError.
   */
  [[nodiscard]] static constexpr Error from_bytes_result(ssize_t r) noexcept {
    if (r < 0 && r > -HIPFILE_BASE_ERR) return from_errno(static_cast<int>(-r));
    if (r <= -HIPFILE_BASE_ERR && r > -(HIPFILE_BASE_ERR + 1000)) {
      const auto op = static_cast<hipFileOpError_t>(-r);
      return op == hipFileHipDriverError ? Error(op, hipErrorUnknown) : Error(op);
    }
    return Error();
  }

  /// The hipFile op error (never hipFileSuccess).
  [[nodiscard]] constexpr hipFileOpError_t op() const noexcept { return op_; }
  /// The HIP runtime error, hipSuccess when no HIP call failed.
  [[nodiscard]] constexpr hipError_t hip() const noexcept { return hip_; }
  /// The errno of a failed system call, 0 when none failed.
  [[nodiscard]] constexpr int sys_errno() const noexcept { return errno_; }
  /// True for a system call failure (the C I/O calls report it as -1 with errno).
  [[nodiscard]] constexpr bool is_system() const noexcept { return errno_ != 0; }
  /// True for a HIP runtime failure.
  [[nodiscard]] constexpr bool is_hip() const noexcept { return hip_ != hipSuccess; }

  /// Back to the C status; the errno, which that struct cannot hold, is dropped.
  [[nodiscard]] constexpr hipFileError_t to_status() const noexcept { return hipFileError_t{op_, hip_}; }
  /**
   * @brief Back to the hipFileRead/Write convention: -1 with errno set for a system error,
   *        otherwise `-op()` (the HIP error is not representable and is dropped).
   * @note Sets errno when it returns -1.
   */
  [[nodiscard]] ssize_t to_io_return() const noexcept {
    if (errno_ != 0) {
      errno = errno_;
      return -1;
    }
    return -static_cast<ssize_t>(op_);
  }

  /**
   * @brief Human-readable text: "<op text>[: <HIP error name>][: <strerror>]".
   *
   * For a system error with the default op the op text is left out ("No such file or
   * directory (errno 2)"). Calls hipFileGetOpErrorString, so the program links libhipfile;
   * HIP error names come from a table, not from the HIP runtime.
   */
  [[nodiscard]] std::string message() const {
    std::string out;
    if (!(errno_ != 0 && op_ == hipFileInternalError)) out = hipFileGetOpErrorString(op_);
    if (hip_ != hipSuccess) {
      if (!out.empty()) out += ": ";
      if (const char* name = detail::hip_error_name(hip_)) {
        out += name;
      } else {
        out += "hip error ";
        out += std::to_string(static_cast<int>(hip_));
      }
    }
    if (errno_ != 0) {
      if (!out.empty()) out += ": ";
      char buf[128] = {};
      out += strerror_text(::strerror_r(errno_, buf, sizeof buf), buf);
      out += " (errno ";
      out += std::to_string(errno_);
      out += ')';
    }
    return out;
  }

  friend constexpr bool operator==(const Error&, const Error&) noexcept = default;

 private:
  // strerror_r is the GNU one (returns the text) or the XSI one (returns 0 and fills buf).
  static const char* strerror_text(const char* gnu, const char*) noexcept { return gnu; }
  static const char* strerror_text(int xsi, const char* buf) noexcept {
    return xsi == 0 ? buf : "Unknown error";
  }

  hipFileOpError_t op_ = hipFileInternalError;
  hipError_t hip_ = hipSuccess;
  int errno_ = 0;
};

/// The return type of every fallible hipfile++ call. GCC 12 lacks the monadic members; write
/// `if (!r) return std::unexpected(r.error());`.
template <class T>
using Result = std::expected<T, Error>;

/// Adapts a C status: success becomes an empty Result<void>, anything else its Error.
[[nodiscard]] constexpr Result<void> check(hipFileError_t s) noexcept {
  if (s.err == hipFileSuccess) return {};
  return std::unexpected(Error::from_status(s));
}

/// Adapts a hipFileRead/Write return: a count (short counts included) or its Error. Call it
/// right after the C call, because -1 reads errno.
[[nodiscard]] inline Result<std::size_t> check_io(ssize_t r) noexcept {
  if (r >= 0) return static_cast<std::size_t>(r);
  return std::unexpected(Error::from_io_return(r));
}

}  // namespace hipfile
