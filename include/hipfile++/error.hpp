// SPDX-License-Identifier: MIT
/**
 * @file error.hpp
 * @brief hipfile::Error, the one error vocabulary of hipfile++, and hipfile::Result<T>.
 *
 * Every fallible hipfile++ call returns `Result<T>` (`expected<T, Error>`, see expected.hpp);
 * nothing throws. An Error says what failed and why:
 * - why: the hipFile op error, the HIP runtime error behind a hipFileHipDriverError, the errno
 *   behind a system failure, or end of file;
 * - what: the operation ("read", "open", ...), and where the caller's objects know them, the
 *   path, the file offset and the length.
 * message() puts both in one line: "read of 4096 bytes at offset 1048576 from 'data.bin': end
 * of file", "open 'missing.bin': No such file or directory (ENOENT)". Where hipfile++ knows
 * more than the code says (a span past its allocation, a negative offset), an explanation
 * follows: "...: invalid argument: size 2097152 at buffer offset 0 runs past the buffer's
 * 1048576 bytes".
 *
 * It converts to and from the C API's return conventions (`hipFileError_t`, the `ssize_t` of
 * hipFileRead/Write, the -errno/-op bytes result of batch and async), so C++ and C code can
 * share one error path.
 *
 * Thread safety: Error is a value type; copies are independent (the path is shared, immutable).
 */
#pragma once

#include <hipfile/hipfile.h>

#include <hip/hip_runtime_api.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "detail/errno_names.hpp"
#include "detail/hip_names.hpp"
#include "expected.hpp"
#include "span.hpp"

namespace hipfile {

/// What was being done when an Error happened (the first words of Error::message()).
enum class Operation : std::uint8_t {
  unknown,          ///< not recorded (an Error made from a bare C code)
  open,             ///< open(2) in File::open
  close,            ///< close(2)
  register_file,    ///< hipFileHandleRegister
  read,             ///< a read, sync, async, batch or stream-ordered
  write,            ///< a write, likewise
  sync,             ///< fdatasync(2)
  stat,             ///< fstat(2) / lseek for File::size
  register_buffer,  ///< hipFileBufRegister
  deregister_buffer,///< hipFileBufDeregister
  allocate,         ///< hipMalloc in DeviceBuffer
  driver,           ///< hipFileDriverOpen / Close / properties
  batch,            ///< a batch call that is not one entry's I/O (setup, status)
  stream,           ///< hipFileStreamRegister / Deregister
};

/// The word message() uses for @p op ("read", "register buffer").
[[nodiscard]] constexpr const char* to_string(Operation op) noexcept {
  switch (op) {
    case Operation::open: return "open";
    case Operation::close: return "close";
    case Operation::register_file: return "register";
    case Operation::read: return "read";
    case Operation::write: return "write";
    case Operation::sync: return "sync";
    case Operation::stat: return "stat";
    case Operation::register_buffer: return "register buffer";
    case Operation::deregister_buffer: return "deregister buffer";
    case Operation::allocate: return "allocate";
    case Operation::driver: return "driver";
    case Operation::batch: return "batch";
    case Operation::stream: return "stream";
    case Operation::unknown: break;
  }
  return "";
}

/**
 * @brief Where an Error happened: the operation and, where known, the path, offset, length.
 *
 * File attaches its path (shared, so an Error costs no copy of it); offset is the file
 * offset of an I/O (absent elsewhere); length is the byte count asked for.
 */
struct Context {
  Operation operation = Operation::unknown;
  std::shared_ptr<const std::string> path;  ///< null when unknown (a File from adopt())
  Offset offset = 0;                        ///< meaningful when has_offset
  std::size_t length = 0;                   ///< meaningful when has_length
  bool has_offset = false;
  bool has_length = false;

  Context() noexcept = default;
  // Plain fields rather than std::optional members: GCC 12 warns (maybe-uninitialized) on
  // moving those through std::variant at -O2.
  Context(Operation op, std::shared_ptr<const std::string> p = nullptr, std::optional<Offset> off = std::nullopt,
          std::optional<std::size_t> len = std::nullopt) noexcept
      : operation(op), path(std::move(p)), offset(off.value_or(0)), length(len.value_or(0)),
        has_offset(off.has_value()), has_length(len.has_value()) {}
};

/**
 * @brief One failed operation: why (op error, HIP error, errno, end of file) and what (Context).
 *
 * `op()` is the hipFile op error, or hipFileSuccess when the failure is none: a plain system
 * call (is_system(), sys_errno()) or end of file (is_eof()). A default Error, or one made from
 * a successful status, is hipFileInternalError, because a success is not an error.
 * `operator==` compares why (op, HIP error, errno, end of file), not the context.
 */
class Error {
 public:
  /// hipFileInternalError with no HIP error, no errno and no context.
  Error() noexcept = default;

  /// An op error, optionally with the HIP error and errno behind it. hipFileSuccess with an
  /// errno is a plain system error; hipFileSuccess alone becomes hipFileInternalError.
  explicit Error(hipFileOpError_t op, hipError_t hip = hipSuccess, int sys_errno = 0) noexcept
      : op_(op == hipFileSuccess && sys_errno == 0 ? hipFileInternalError : op), hip_(hip), errno_(sys_errno) {}

  /// From a C status `{err, hip_drv_err}` (as returned by every non-I/O C call).
  [[nodiscard]] static Error from_status(hipFileError_t s) noexcept { return Error(s.err, s.hip_drv_err); }
  /// A hipFile op error alone.
  [[nodiscard]] static Error from_op(hipFileOpError_t op) noexcept { return Error(op); }
  /// A HIP runtime failure: op is hipFileHipDriverError, as the C API reports it.
  [[nodiscard]] static Error from_hip(hipError_t e) noexcept { return Error(hipFileHipDriverError, e); }
  /// A system call failure (op() is hipFileSuccess unless @p op names one).
  [[nodiscard]] static Error from_errno(int e, hipFileOpError_t op = hipFileSuccess) noexcept {
    return Error(op, hipSuccess, e);
  }
  /// From the current value of errno.
  [[nodiscard]] static Error last_errno(hipFileOpError_t op = hipFileSuccess) noexcept { return from_errno(errno, op); }
  /// The file ended before the request was complete (read_exact and friends). sys_errno() is
  /// ENODATA, the errno the C convention (to_io_return) reports it with.
  [[nodiscard]] static Error end_of_file() noexcept {
    Error e = from_errno(ENODATA);
    e.eof_ = true;
    return e;
  }

  /**
   * @brief From a negative `ssize_t` returned by hipFileRead/hipFileWrite.
   *
   * -1 means errno (read here, so call this right after the C call); `-op` (below
   * -HIPFILE_BASE_ERR) is an op error; a value between -2 and -4999 is upstream hipFile's raw
   * `-hipError_t` and becomes a HIP error. `-hipFileHipDriverError` does not carry the HIP
   * error, so hip() is hipErrorUnknown then. Batch and async results use another convention:
   * see from_bytes_result. A non-negative @p r is not an error: hipFileInternalError.
   */
  [[nodiscard]] static Error from_io_return(ssize_t r) noexcept {
    if (r == -1) return last_errno();
    if (r < -HIPFILE_BASE_ERR && r > -(HIPFILE_BASE_ERR + 1000)) return from_op_return(r);
    if (r < -1 && r > -HIPFILE_BASE_ERR) return from_hip(static_cast<hipError_t>(-r));
    return Error();
  }
  /**
   * @brief From the bytes-result convention of batch events (`ret`, cast to ssize_t) and of
   *        async operations (`*bytes_p`): `-1 .. -4095` is `-errno` of the failed system call
   *        (-EBADF = -9 is EBADF, not a HIP error), `<= -HIPFILE_BASE_ERR` is `-hipFileOpError`.
   *        A non-negative @p r is not an error: hipFileInternalError.
   */
  [[nodiscard]] static Error from_bytes_result(ssize_t r) noexcept {
    if (r < 0 && r >= -4095) return from_errno(static_cast<int>(-r));  // Linux errno < 4096
    if (r <= -HIPFILE_BASE_ERR && r > -(HIPFILE_BASE_ERR + 1000)) return from_op_return(r);
    return Error();
  }

  /// The hipFile op error; hipFileSuccess for a plain system error or end of file.
  [[nodiscard]] hipFileOpError_t op() const noexcept { return op_; }
  /// The HIP runtime error, hipSuccess when no HIP call failed.
  [[nodiscard]] hipError_t hip() const noexcept { return hip_; }
  /// The errno of a failed system call, 0 when none failed (ENODATA at end of file).
  [[nodiscard]] int sys_errno() const noexcept { return errno_; }
  /// True for a failed system call (not for end of file).
  [[nodiscard]] bool is_system() const noexcept { return errno_ != 0 && !eof_; }
  /// True when the file ended before the request was complete.
  [[nodiscard]] bool is_eof() const noexcept { return eof_; }
  /// True for a HIP runtime failure.
  [[nodiscard]] bool is_hip() const noexcept { return hip_ != hipSuccess; }

  /// Where it happened (see Context).
  [[nodiscard]] const Context& context() const noexcept { return ctx_; }
  [[nodiscard]] Operation operation() const noexcept { return ctx_.operation; }
  /// The path of the file, empty when unknown.
  [[nodiscard]] const std::string& path() const noexcept {
    static const std::string none;
    return ctx_.path ? *ctx_.path : none;
  }
  [[nodiscard]] std::optional<Offset> offset() const noexcept {
    return ctx_.has_offset ? std::optional<Offset>(ctx_.offset) : std::nullopt;
  }
  [[nodiscard]] std::optional<std::size_t> length() const noexcept {
    return ctx_.has_length ? std::optional<std::size_t>(ctx_.length) : std::nullopt;
  }

  /// The same error, in @p ctx. An operation already recorded is kept (the innermost call
  /// knows best what it did); the other fields are filled where still unknown.
  [[nodiscard]] Error in(const Context& ctx) const noexcept {
    Error e = *this;
    if (e.ctx_.operation == Operation::unknown) e.ctx_.operation = ctx.operation;
    if (!e.ctx_.path) e.ctx_.path = ctx.path;
    if (!e.ctx_.has_offset) {
      e.ctx_.offset = ctx.offset;
      e.ctx_.has_offset = ctx.has_offset;
    }
    if (!e.ctx_.has_length) {
      e.ctx_.length = ctx.length;
      e.ctx_.has_length = ctx.has_length;
    }
    return e;
  }
  /// The same error, done by @p op (with no path, offset or length).
  [[nodiscard]] Error in(Operation op) const noexcept { return in(Context(op)); }

  /// The same error with @p why, what exactly was wrong, appended to message(); an empty
  /// @p why leaves it as it is. Not part of operator==: the code stays what callers compare.
  [[nodiscard]] Error explained(std::string why) const {
    Error e = *this;
    if (!why.empty()) e.explanation_ = std::make_shared<const std::string>(std::move(why));
    return e;
  }
  /// What explained() added, empty when nothing was.
  [[nodiscard]] const std::string& explanation() const noexcept {
    static const std::string none;
    return explanation_ ? *explanation_ : none;
  }

  /// Back to the C status; the errno, which that struct cannot hold, is dropped (a plain
  /// system error becomes hipFileInternalError).
  [[nodiscard]] hipFileError_t to_status() const noexcept {
    return hipFileError_t{op_ == hipFileSuccess ? hipFileInternalError : op_, hip_};
  }
  /**
   * @brief Back to the hipFileRead/Write convention: -1 with errno set for a system error (and
   *        end of file), otherwise `-op()` (the HIP error is not representable and is dropped).
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
   * @brief One line: "<what>: <why>". What: the operation, " of N bytes", " at offset X",
   *        " from 'path'" (reads) / " to 'path'" (writes) / " 'path'" (others), as far as
   *        known; left out with its colon when nothing is known. Why: "end of file", or
   *        "<op text>[: <HIP error name>][: <strerror> (ENAME)]".
   *
   * Calls hipFileGetOpErrorString, so the program links libhipfile; HIP error and errno names
   * come from tables, not from the HIP runtime.
   */
  [[nodiscard]] std::string message() const {
    std::string what = describe_context();
    std::string why = describe_cause();
    if (explanation_) why += ": " + *explanation_;
    if (what.empty()) return why;
    return what + ": " + why;
  }

  friend bool operator==(const Error& a, const Error& b) noexcept {
    return a.op_ == b.op_ && a.hip_ == b.hip_ && a.errno_ == b.errno_ && a.eof_ == b.eof_;
  }

 private:
  static Error from_op_return(ssize_t r) noexcept {
    const auto op = static_cast<hipFileOpError_t>(-r);
    return op == hipFileHipDriverError ? Error(op, hipErrorUnknown) : Error(op);
  }

  std::string describe_context() const {
    std::string out = to_string(ctx_.operation);
    if (ctx_.has_length) out += " of " + std::to_string(ctx_.length) + (ctx_.length == 1 ? " byte" : " bytes");
    if (ctx_.has_offset) out += " at offset " + std::to_string(ctx_.offset);
    if (ctx_.path) {
      const bool io = ctx_.operation == Operation::read || ctx_.operation == Operation::write;
      out += io ? (ctx_.operation == Operation::read ? " from '" : " to '") : (out.empty() ? "'" : " '");
      out += *ctx_.path;
      out += '\'';
    }
    return out;
  }

  std::string describe_cause() const {
    if (eof_) return "end of file";
    std::string out;
    if (op_ != hipFileSuccess) out = hipFileGetOpErrorString(op_);
    if (hip_ != hipSuccess) {
      if (!out.empty()) out += ": ";
      if (const char* name = detail::hip_error_name(hip_)) {
        out += name;
      } else {
        out += "hip error " + std::to_string(static_cast<int>(hip_));
      }
    }
    if (errno_ != 0) {
      if (!out.empty()) out += ": ";
      char buf[128] = {};
      out += strerror_text(::strerror_r(errno_, buf, sizeof buf), buf);
      const char* name = detail::errno_name(errno_);
      out += name ? std::string(" (") + name + ")" : " (errno " + std::to_string(errno_) + ")";
    }
    return out;
  }

  // strerror_r is the GNU one (returns the text) or the XSI one (returns 0 and fills buf).
  static const char* strerror_text(const char* gnu, const char*) noexcept { return gnu; }
  static const char* strerror_text(int xsi, const char* buf) noexcept { return xsi == 0 ? buf : "Unknown error"; }

  hipFileOpError_t op_ = hipFileInternalError;
  hipError_t hip_ = hipSuccess;
  int errno_ = 0;
  bool eof_ = false;
  Context ctx_;
  std::shared_ptr<const std::string> explanation_;  // shared, like the path: copies stay cheap
};

/// The return type of every fallible hipfile++ call: `std::expected<T, Error>` where the
/// standard library has it, the compatible fallback of expected.hpp elsewhere. Return an
/// error with `hipfile::unexpected(e)`.
template <class T>
using Result = expected<T, Error>;

namespace detail {

/// Why [offset, offset + length) is no file range (negative, or past INT64_MAX); empty when it
/// is one. The offset is named, so the message says which number was wrong.
[[nodiscard]] inline std::string range_problem(Offset offset, std::size_t length) {
  if (offset < 0) return "the file offset " + std::to_string(offset) + " is negative";
  if (valid_range(offset, length)) return {};
  return "the file offset " + std::to_string(offset) + " plus " + std::to_string(length) +
         " bytes passes INT64_MAX";
}

/// A bad file range as hipFileRead/hipFileWrite report it (-1, errno EINVAL): File's
/// synchronous I/O and io.hpp.
[[nodiscard]] inline Error bad_range_errno(Offset offset, std::size_t length) {
  return Error::from_errno(EINVAL).explained(range_problem(offset, length));
}
/// A bad file range as hipFileBatchIOSubmit and hipFileReadAsync/WriteAsync report it
/// (hipFileInvalidValue): Batch, File::read_async/write_async and AsyncIo.
[[nodiscard]] inline Error bad_range_op(Offset offset, std::size_t length) {
  return Error::from_op(hipFileInvalidValue).explained(range_problem(offset, length));
}

/**
 * @brief @p e, explained where it is hipFileInvalidValue because the @p size bytes at @p p run
 *        past the device allocation that holds @p p (the library's check; the runtime knows the
 *        allocation, a span does not). Asked only after the C call refused the request, so a
 *        request that succeeds costs no runtime query.
 */
[[nodiscard]] inline Error explain_overrun(const Error& e, const void* p, std::size_t size) {
  if (e.op() != hipFileInvalidValue || !e.explanation().empty() || p == nullptr) return e;
  hipDeviceptr_t base = nullptr;
  std::size_t bytes = 0;
  if (hipMemGetAddressRange(&base, &bytes, const_cast<void*>(p)) != hipSuccess) {
    (void)hipGetLastError();  // a host pointer: not the runtime's to describe
    return e;
  }
  const auto start = reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(base);
  if (start <= bytes && size <= bytes - start) return e;
  return e.explained("size " + std::to_string(size) + " at buffer offset " + std::to_string(start) +
                     " runs past the buffer's " + std::to_string(bytes) + " bytes");
}

}  // namespace detail

/// The fallback expected's value() on an error prints the message before aborting.
inline void report_bad_expected_access(const Error& e) noexcept {
  std::fprintf(stderr, "hipfile: value() of a failed Result: %s\n", e.message().c_str());
}

/// Adapts a C status: success becomes an empty Result<void>, anything else its Error.
[[nodiscard]] inline Result<void> check(hipFileError_t s) noexcept {
  if (s.err == hipFileSuccess) return {};
  return unexpected(Error::from_status(s));
}
/// check() with the operation recorded: `check(hipFileDriverOpen(), Operation::driver)`.
[[nodiscard]] inline Result<void> check(hipFileError_t s, Operation op) noexcept {
  if (s.err == hipFileSuccess) return {};
  return unexpected(Error::from_status(s).in(op));
}

/// Adapts a hipFileRead/Write return: a count (short counts included) or its Error. Call it
/// right after the C call, because -1 reads errno.
[[nodiscard]] inline Result<std::size_t> check_io(ssize_t r) noexcept {
  if (r >= 0) return static_cast<std::size_t>(r);
  return unexpected(Error::from_io_return(r));
}

}  // namespace hipfile
