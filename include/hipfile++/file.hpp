// SPDX-License-Identifier: MIT
/**
 * @file file.hpp
 * @brief hipfile::File: an open file descriptor registered with hipFile, and span-based I/O
 *        between it and device (or host) memory.
 *
 * This header is enough to use File (it brings Registration along for the registered-buffer
 * overloads).
 */
#pragma once

#include <hipfile/hipfile.h>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "detail/posix.hpp"
#include "error.hpp"
#include "pending.hpp"
#include "registration.hpp"
#include "span.hpp"

namespace hipfile {

namespace detail {

/// hipFileInvalidValue for a span @p s not inside @p reg's region, saying where it lies.
[[nodiscard]] inline Error outside_registration(const Registration& reg, std::span<const std::byte> s) {
  const auto base = reinterpret_cast<std::uintptr_t>(reg.base());
  const auto start = reinterpret_cast<std::uintptr_t>(s.data());
  const Error e = Error::from_op(hipFileInvalidValue);
  const std::string region = "the registration's " + std::to_string(reg.size()) + " bytes";
  if (start < base)
    return e.explained("the span starts " + std::to_string(base - start) + " bytes before " + region);
  return e.explained("size " + std::to_string(s.size()) + " at registration offset " + std::to_string(start - base) +
                     " runs past " + region);
}

}  // namespace detail

/// How File::open treats O_DIRECT.
enum class DirectIo {
  prefer,   ///< add O_DIRECT; where the file system refuses it (EINVAL), open without it
  require,  ///< add O_DIRECT and fail where the file system refuses it
  off,      ///< open without O_DIRECT (and strip it from the flags)
};

/**
 * @brief Owns a file descriptor and its hipFile handle (hipFileHandleRegister). Destruction
 *        deregisters the handle, then closes the descriptor.
 *
 * I/O takes `std::span`s of device memory (or of host memory, which this library accepts) and
 * a file offset; a short count (end of file) is a success, read_exact()/write_all() turn it
 * into an error. Registered memory goes through the overloads taking a Registration, which
 * pass the registration base plus the span's offset in it, as the C API wants.
 *
 * Ownership: move-only; the empty (default or moved-from) state owns nothing (fd() == -1,
 * handle() == nullptr). Thread safety: the const I/O members may run concurrently on one
 * object from several threads (the C API is thread-safe); close(), reset(), release() and
 * assignment must not race with anything else on the same object.
 */
class File {
 public:
  /// What release() hands over: the caller must hipFileHandleDeregister(handle), then close(fd).
  struct Raw {
    int fd = -1;
    hipFileHandle_t handle = nullptr;
  };

  /// Empty: owns nothing.
  File() noexcept = default;

  /**
   * @brief open(2)s @p path (O_CLOEXEC added) and registers the descriptor.
   * @param flags open(2) flags, e.g. O_RDONLY, O_RDWR | O_CREAT | O_TRUNC. O_DIRECT in
   *        @p flags means DirectIo::require.
   * @param mode permissions for a created file.
   * @param direct O_DIRECT policy; by default O_DIRECT is used where the file system supports
   *        it and left out where open(2) refuses it with EINVAL.
   * @return the owner, which remembers @p path for its error messages; the errno of open(2)
   *         ("open 'missing.bin': No such file or directory (ENOENT)"), or the C status of
   *         hipFileHandleRegister (the descriptor is then closed again).
   */
  [[nodiscard]] static Result<File> open(const char* path, int flags, mode_t mode = 0644,
                                         DirectIo direct = DirectIo::prefer) noexcept {
    if (flags & O_DIRECT) direct = DirectIo::require;
    int f = flags | O_CLOEXEC;
    f = direct == DirectIo::off ? (f & ~O_DIRECT) : (f | O_DIRECT);
    int fd;
    if (direct != DirectIo::off && (f & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
      // Linux checks O_DIRECT after creating: a refused O_DIRECT would leave the file made and
      // a retry could no longer be exclusive. Created first, O_DIRECT added after.
      fd = detail::create_exclusive(path, f, mode, direct == DirectIo::require);
    } else {
      fd = detail::open_retry(path, f, mode);
      if (fd < 0 && errno == EINVAL && direct == DirectIo::prefer)
        fd = detail::open_retry(path, f & ~O_DIRECT, mode);  // the file system refused O_DIRECT
    }
    auto where = std::make_shared<const std::string>(path);
    if (fd < 0) return unexpected(Error::last_errno().in(Context{Operation::open, where, {}, {}}));
    auto file = adopt(fd, std::move(where));
    if (!file) detail::close_quietly(fd);
    return file;
  }
  /// As open(const char*, ...).
  [[nodiscard]] static Result<File> open(const std::string& path, int flags, mode_t mode = 0644,
                                         DirectIo direct = DirectIo::prefer) noexcept {
    return open(path.c_str(), flags, mode, direct);
  }

  /**
   * @brief Registers @p fd and takes ownership of it on success (it will be closed by this
   *        object). On failure the caller keeps the descriptor.
   * @param path the file's name for error messages (nullptr: unknown, messages leave it out).
   */
  [[nodiscard]] static Result<File> adopt(int fd, const char* path = nullptr) noexcept {
    return adopt(fd, path ? std::make_shared<const std::string>(path) : nullptr);
  }

  File(File&& o) noexcept
      : fd_(std::exchange(o.fd_, -1)), handle_(std::exchange(o.handle_, nullptr)), path_(std::move(o.path_)) {}
  File& operator=(File&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
      handle_ = std::exchange(o.handle_, nullptr);
      path_ = std::move(o.path_);
    }
    return *this;
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  /// Deregisters, then closes; never throws, ignores the close status (use close() to see it).
  ~File() { reset(); }

  /// Deregisters and closes now (close status ignored); the object becomes empty.
  void reset() noexcept { (void)close(); }

  /**
   * @brief Deregisters the handle (waiting for I/O on it to finish), then closes the
   *        descriptor once (never retried on EINTR: Linux has released it already).
   * @return Error::from_errno of a failing close(2). The object is empty afterwards either way.
   */
  [[nodiscard]] Result<void> close() noexcept {
    if (hipFileHandle_t h = std::exchange(handle_, nullptr)) hipFileHandleDeregister(h);
    const int fd = std::exchange(fd_, -1);
    auto where = std::move(path_);
    path_ = nullptr;
    if (fd < 0) return {};
    if (const int e = detail::close_once(fd); e != 0)
      return unexpected(Error::from_errno(e).in(Context{Operation::close, std::move(where), {}, {}}));
    return {};
  }

  /// Gives up ownership of both the descriptor and the handle (see Raw). Empty afterwards.
  [[nodiscard]] Raw release() noexcept {
    path_ = nullptr;
    return Raw{std::exchange(fd_, -1), std::exchange(handle_, nullptr)};
  }

  /// True while a registered descriptor is owned.
  explicit operator bool() const noexcept { return fd_ >= 0; }
  /// The descriptor (-1 when empty). Still owned by this object: do not close it.
  [[nodiscard]] int fd() const noexcept { return fd_; }
  /// The hipFile handle for C calls (nullptr when empty). Still owned by this object.
  [[nodiscard]] hipFileHandle_t handle() const noexcept { return handle_; }

  /// The path given to open() (or adopt()), empty when unknown.
  [[nodiscard]] const std::string& path() const noexcept {
    static const std::string none;
    return path_ ? *path_ : none;
  }

  /// The Context an Error of this File's I/O carries: @p op, the path, the range.
  [[nodiscard]] Context context(Operation op, std::optional<Offset> offset = std::nullopt,
                                std::optional<std::size_t> length = std::nullopt) const noexcept {
    return Context{op, path_, offset, length};
  }

  /// True when the descriptor was opened with O_DIRECT.
  [[nodiscard]] bool direct() const noexcept {
    if (fd_ < 0) return false;
    const int fl = ::fcntl(fd_, F_GETFL);
    return fl >= 0 && (fl & O_DIRECT) != 0;
  }

  /**
   * @brief The file size in bytes (fstat; for a block device, its capacity).
   * @return the size, or Error::from_errno of the failing call (EBADF when empty).
   */
  [[nodiscard]] Result<std::uint64_t> size() const noexcept {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return unexpected(Error::last_errno().in(context(Operation::stat)));
    if (S_ISBLK(st.st_mode)) {
      // fstat reports 0 for block devices; their capacity comes from the device, without moving
      // the file position that other users of the descriptor share.
      std::uint64_t bytes = 0;
      if (::ioctl(fd_, detail::kBlockDeviceBytes, &bytes) != 0) return unexpected(Error::last_errno().in(context(Operation::stat)));
      return bytes;
    }
    return static_cast<std::uint64_t>(st.st_size);
  }

  /**
   * @brief Reads up to dst.size_bytes() bytes at @p file_offset into @p dst (unregistered device
   *        or host memory, or memory inside a registration, which the library finds itself:
   *        hipFileRead(handle, dst.data(), size, offset, 0)). Any trivially copyable element
   *        type: `file.read(buf.as<float>(), 0)`.
   * @return the byte count, short at end of file (0 at or after it); EINVAL (a system error, as
   *         hipFileRead gives it) for a negative offset or a range beyond INT64_MAX, explained
   *         with the offset; or the Error of the C call (hipFileInvalidValue for a span past
   *         the end of its device allocation, explained with the sizes).
   */
  template <Writable T, std::size_t N>
  [[nodiscard]] Result<std::size_t> read(std::span<T, N> dst, Offset file_offset) const noexcept {
    return read_bytes(detail::writable_bytes(dst), file_offset);
  }
  /// read() of a byte span (also takes what converts to one, e.g. a std::vector<std::byte>).
  [[nodiscard]] Result<std::size_t> read(std::span<std::byte> dst, Offset file_offset) const noexcept {
    return read_bytes(dst, file_offset);
  }
  /// Writes src.size_bytes() bytes at @p file_offset from @p src. @return the count or the Error.
  template <Transferable T, std::size_t N>
  [[nodiscard]] Result<std::size_t> write(std::span<T, N> src, Offset file_offset) const noexcept {
    return write_bytes(detail::readable_bytes(src), file_offset);
  }
  /// write() of a byte span.
  [[nodiscard]] Result<std::size_t> write(std::span<const std::byte> src, Offset file_offset) const noexcept {
    return write_bytes(src, file_offset);
  }

  /**
   * @brief Reads into @p dst, a subspan of the registered region of @p reg, passing the
   *        registration base and dst's offset from it (hipFileRead(handle, reg.base(), size,
   *        file_offset, dst.data() - reg.base())).
   * @return the count; hipFileMemoryNotRegistered for an empty @p reg, hipFileInvalidValue
   *         when @p dst is not inside reg.region(), or the Error of the C call.
   */
  template <Writable T, std::size_t N>
  [[nodiscard]] Result<std::size_t> read(const Registration& reg, std::span<T, N> dst,
                                         Offset file_offset) const noexcept {
    return read_registered(reg, detail::writable_bytes(dst), file_offset);
  }
  [[nodiscard]] Result<std::size_t> read(const Registration& reg, std::span<std::byte> dst,
                                         Offset file_offset) const noexcept {
    return read_registered(reg, dst, file_offset);
  }
  /// Writes from @p src, a subspan of reg.region(); errors as the registered read().
  template <Transferable T, std::size_t N>
  [[nodiscard]] Result<std::size_t> write(const Registration& reg, std::span<T, N> src,
                                          Offset file_offset) const noexcept {
    return write_registered(reg, detail::readable_bytes(src), file_offset);
  }
  [[nodiscard]] Result<std::size_t> write(const Registration& reg, std::span<const std::byte> src,
                                          Offset file_offset) const noexcept {
    return write_registered(reg, src, file_offset);
  }

  /**
   * @brief Fills all of @p dst from @p file_offset on, repeating short reads.
   * @return an end-of-file Error (is_eof()) when the file ends first (the bytes before that
   *         point have been read), or the first Error of a read.
   */
  template <Writable T, std::size_t N>
  [[nodiscard]] Result<void> read_exact(std::span<T, N> dst, Offset file_offset) const noexcept {
    return read_exact(detail::writable_bytes(dst), file_offset);
  }
  [[nodiscard]] Result<void> read_exact(std::span<std::byte> dst, Offset file_offset) const noexcept {
    return loop(dst, file_offset, [&](std::span<std::byte> part, Offset off) { return read_bytes(part, off); });
  }
  /// read_exact() into a subspan of a registered region.
  template <Writable T, std::size_t N>
  [[nodiscard]] Result<void> read_exact(const Registration& reg, std::span<T, N> dst,
                                        Offset file_offset) const noexcept {
    return read_exact(reg, detail::writable_bytes(dst), file_offset);
  }
  [[nodiscard]] Result<void> read_exact(const Registration& reg, std::span<std::byte> dst,
                                        Offset file_offset) const noexcept {
    return loop(dst, file_offset,
                [&](std::span<std::byte> part, Offset off) { return read_registered(reg, part, off); });
  }
  /// Writes all of @p src, repeating short writes; a write that makes no progress is EIO.
  template <Transferable T, std::size_t N>
  [[nodiscard]] Result<void> write_all(std::span<T, N> src, Offset file_offset) const noexcept {
    return write_all(detail::readable_bytes(src), file_offset);
  }
  [[nodiscard]] Result<void> write_all(std::span<const std::byte> src, Offset file_offset) const noexcept {
    return loop(src, file_offset, [&](std::span<const std::byte> part, Offset off) { return write_bytes(part, off); });
  }
  /// write_all() from a subspan of a registered region.
  template <Transferable T, std::size_t N>
  [[nodiscard]] Result<void> write_all(const Registration& reg, std::span<T, N> src,
                                       Offset file_offset) const noexcept {
    return write_all(reg, detail::readable_bytes(src), file_offset);
  }
  [[nodiscard]] Result<void> write_all(const Registration& reg, std::span<const std::byte> src,
                                       Offset file_offset) const noexcept {
    return loop(src, file_offset,
                [&](std::span<const std::byte> part, Offset off) { return write_registered(reg, part, off); });
  }

  /**
   * @brief Reads one value of a trivially copyable @p T at @p file_offset into **host** memory
   *        (a header field, a length prefix): `auto n = file.read_value<std::uint64_t>(0);`
   * @return the value; an end-of-file Error when fewer than sizeof(T) bytes remain.
   */
  template <Writable T>
  [[nodiscard]] Result<T> read_value(Offset file_offset) const noexcept {
    T value{};
    if (auto r = read_exact(std::span<T, 1>(&value, 1), file_offset); !r) return unexpected(r.error());
    return value;
  }
  /// Writes one trivially copyable value from host memory at @p file_offset.
  template <Transferable T>
  [[nodiscard]] Result<void> write_value(const T& value, Offset file_offset) const noexcept {
    return write_all(std::span<const T, 1>(&value, 1), file_offset);
  }

  /**
   * @brief Starts a read of dst.size_bytes() bytes at @p file_offset into @p dst and returns at
   *        once; many may be in flight from one thread. The I/O runs on the library's
   *        executor (one-entry C batch; see pending.hpp for lifetime and destruction).
   * @return the Pending; get() gives the count (short at end of file) or the Error. A
   *         zero-length read is finished at once with 0; a refused submission is finished
   *         with its Error. A negative offset or a range beyond INT64_MAX is
   *         hipFileInvalidValue, as hipFileBatchIOSubmit reports it, explained with the offset.
   */
  template <Writable T, std::size_t N>
  [[nodiscard]] Pending<std::size_t> read_async(std::span<T, N> dst, Offset file_offset) const noexcept {
    return start(hipFileBatchRead, detail::writable_bytes(dst).data(), dst.size_bytes(), file_offset, 0);
  }
  [[nodiscard]] Pending<std::size_t> read_async(std::span<std::byte> dst, Offset file_offset) const noexcept {
    return start(hipFileBatchRead, dst.data(), dst.size(), file_offset, 0);
  }
  /// Starts a write of src.size_bytes() bytes from @p src at @p file_offset (as read_async).
  template <Transferable T, std::size_t N>
  [[nodiscard]] Pending<std::size_t> write_async(std::span<T, N> src, Offset file_offset) const noexcept {
    return start(hipFileBatchWrite, detail::readable_bytes(src).data(), src.size_bytes(), file_offset, 0);
  }
  [[nodiscard]] Pending<std::size_t> write_async(std::span<const std::byte> src, Offset file_offset) const noexcept {
    return start(hipFileBatchWrite, src.data(), src.size(), file_offset, 0);
  }
  /// read_async() into a subspan of a registered region (registration base + offset).
  template <Writable T, std::size_t N>
  [[nodiscard]] Pending<std::size_t> read_async(const Registration& reg, std::span<T, N> dst,
                                                Offset file_offset) const noexcept {
    return start_registered(hipFileBatchRead, reg, detail::writable_bytes(dst), file_offset);
  }
  /// write_async() from a subspan of a registered region.
  template <Transferable T, std::size_t N>
  [[nodiscard]] Pending<std::size_t> write_async(const Registration& reg, std::span<T, N> src,
                                                 Offset file_offset) const noexcept {
    return start_registered(hipFileBatchWrite, reg, detail::readable_bytes(src), file_offset);
  }

  /**
   * @brief fdatasync(2): the written data (and the metadata needed to read it back) reaches
   *        stable storage. The library does not sync per write (see doc/configuration.md).
   * @return Error::from_errno of fdatasync (EBADF when empty).
   */
  [[nodiscard]] Result<void> sync() const noexcept {
    int rc;
    do {
      rc = ::fdatasync(fd_);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) return unexpected(Error::last_errno().in(context(Operation::sync)));
    return {};
  }

 private:

  File(int fd, hipFileHandle_t h, std::shared_ptr<const std::string> path) noexcept
      : fd_(fd), handle_(h), path_(std::move(path)) {}

  static Result<File> adopt(int fd, std::shared_ptr<const std::string> path) noexcept {
    hipFileDescr_t descr{};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    descr.fs_ops = nullptr;
    hipFileHandle_t handle = nullptr;
    if (auto r = check(hipFileHandleRegister(&handle, &descr)); !r)
      return unexpected(r.error().in(Context{Operation::register_file, std::move(path), {}, {}}));
    return File(fd, handle, std::move(path));
  }

  // The Error of a failed I/O, in its context (see detail::stale_handle for the driver case).
  Error io_error(const Error& e, Operation op, Offset off, std::size_t len) const noexcept {
    return detail::stale_handle(e, handle_).in(context(op, off, len));
  }
  // @p mem: where the request's bytes start, so a refusal can say how they overran.
  Result<std::size_t> io_result(ssize_t r, Operation op, Offset off, std::size_t len,
                                const void* mem) const noexcept {
    if (r >= 0) return static_cast<std::size_t>(r);
    return unexpected(detail::explain_overrun(io_error(Error::from_io_return(r), op, off, len), mem, len));
  }
  // A bad range is refused as hipFileRead/Write would refuse it: EINVAL, a system error.
  Result<void> check_range(Operation op, Offset off, std::size_t len) const noexcept {
    if (detail::valid_range(off, len)) return {};
    return unexpected(detail::bad_range_errno(off, len).in(context(op, off, len)));
  }

  Result<std::size_t> read_bytes(std::span<std::byte> dst, Offset off) const noexcept {
    if (auto r = check_range(Operation::read, off, dst.size()); !r) return unexpected(r.error());
    return io_result(hipFileRead(handle_, dst.data(), dst.size(), off, 0), Operation::read, off, dst.size(),
                     dst.data());
  }
  Result<std::size_t> write_bytes(std::span<const std::byte> src, Offset off) const noexcept {
    if (auto r = check_range(Operation::write, off, src.size()); !r) return unexpected(r.error());
    return io_result(hipFileWrite(handle_, src.data(), src.size(), off, 0), Operation::write, off, src.size(),
                     src.data());
  }
  Result<std::size_t> read_registered(const Registration& reg, std::span<std::byte> dst, Offset off) const noexcept {
    if (auto r = check_region(reg, dst); !r) return unexpected(r.error().in(context(Operation::read, off, dst.size())));
    if (auto r = check_range(Operation::read, off, dst.size()); !r) return unexpected(r.error());
    return io_result(hipFileRead(handle_, const_cast<void*>(reg.base()), dst.size(), off, reg.offset_of(dst)),
                     Operation::read, off, dst.size(), dst.data());
  }
  Result<std::size_t> write_registered(const Registration& reg, std::span<const std::byte> src,
                                       Offset off) const noexcept {
    if (auto r = check_region(reg, src); !r) return unexpected(r.error().in(context(Operation::write, off, src.size())));
    if (auto r = check_range(Operation::write, off, src.size()); !r) return unexpected(r.error());
    return io_result(hipFileWrite(handle_, reg.base(), src.size(), off, reg.offset_of(src)), Operation::write, off,
                     src.size(), src.data());
  }

  Pending<std::size_t> start(hipFileOpcode_t opcode, const void* base, std::size_t size, Offset off,
                             Offset buffer_offset) const noexcept {
    const Operation op = opcode == hipFileBatchRead ? Operation::read : Operation::write;
    // Refused as hipFileBatchIOSubmit, which runs it, would refuse it: hipFileInvalidValue.
    if (!detail::valid_range(off, size))
      return Pending<>::finished(unexpected(detail::bad_range_op(off, size).in(context(op, off, size))));
    return Pending<>::submit(batch_op(opcode, handle_, base, size, off, buffer_offset), context(op, off, size));
  }
  Pending<std::size_t> start_registered(hipFileOpcode_t opcode, const Registration& reg,
                                        std::span<const std::byte> s, Offset off) const noexcept {
    const Operation op = opcode == hipFileBatchRead ? Operation::read : Operation::write;
    if (auto e = check_region(reg, s); !e) return Pending<>::finished(unexpected(e.error().in(context(op, off, s.size()))));
    return start(opcode, reg.base(), s.size(), off, reg.offset_of(s));
  }

  static Result<void> check_region(const Registration& reg, std::span<const std::byte> s) noexcept {
    if (!reg) return unexpected(Error::from_op(hipFileMemoryNotRegistered));
    if (!reg.contains(s)) return unexpected(detail::outside_registration(reg, s));
    return {};
  }

  // Repeats @p op until all of @p span is done. End of file is reported for the whole request
  // (what the caller asked for), a failing part as that part.
  template <class Byte, class Op>
  Result<void> loop(std::span<Byte> span, Offset file_offset, Op op) const noexcept {
    constexpr Operation what = std::is_const_v<Byte> ? Operation::write : Operation::read;
    if (auto r = check_range(what, file_offset, span.size()); !r) return r;
    std::size_t done = 0;
    while (done < span.size()) {
      auto n = op(span.subspan(done), file_offset + static_cast<Offset>(done));
      if (!n) return unexpected(n.error());
      if (*n == 0) {
        // A write that makes no progress would loop forever: EIO, as the kernel would say.
        const Error e = std::is_const_v<Byte> ? Error::from_errno(EIO) : Error::end_of_file();
        return unexpected(e.in(context(what, file_offset, span.size())));
      }
      done += *n;
    }
    return {};
  }

  int fd_ = -1;
  hipFileHandle_t handle_ = nullptr;
  std::shared_ptr<const std::string> path_;  // shared with the Errors that name it
};

}  // namespace hipfile
