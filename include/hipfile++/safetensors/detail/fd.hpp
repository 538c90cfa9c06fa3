// SPDX-License-Identifier: MIT
/**
 * @file safetensors/detail/fd.hpp
 * @brief Internal: an owned file descriptor and the plain POSIX reads the header parser makes
 *        (headers are small host data; tensor data goes through hipFileRead). Not part of the API.
 */
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "../../detail/posix.hpp"

namespace hipfile::safetensors::detail {

/// Owns one descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  void reset() noexcept {
    if (fd_ >= 0) hipfile::detail::close_quietly(std::exchange(fd_, -1));
  }
  [[nodiscard]] int get() const noexcept { return fd_; }

 private:
  int fd_ = -1;
};

/// pread(2) of exactly @p n bytes, retried on EINTR and short counts. Returns 0, errno, or
/// ENODATA when the file ends first.
inline int pread_exact(int fd, void* dst, std::size_t n, std::uint64_t offset) noexcept {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return ENODATA;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

/// pwrite(2) of all @p n bytes, retried on EINTR and short counts. Returns 0 or errno.
inline int pwrite_all(int fd, const void* src, std::size_t n, std::uint64_t offset) noexcept {
  const auto* p = static_cast<const char*>(src);
  while (n > 0) {
    const ssize_t r = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return EIO;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

/// A file opened for reading by open_regular(): its descriptor and size, or why not.
struct OpenedFile {
  UniqueFd fd;
  std::uint64_t size = 0;
  int error = 0;                     ///< errno of a failed open, fstat or fcntl
  const char* not_regular = nullptr; ///< "a FIFO", "a directory", ...: what it is instead
};

/// "a directory", "a FIFO", ...: what a file that is not a regular one is.
inline const char* file_type_name(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a plain file";
}

/// Opens @p path read-only and requires a regular file. O_NONBLOCK keeps the open of a FIFO
/// from waiting forever for a writer; it is cleared again once the file is known to be regular.
inline OpenedFile open_regular(const std::string& path) noexcept {
  OpenedFile f;
  f.fd = UniqueFd(hipfile::detail::open_retry(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0));
  struct stat st {};
  if (f.fd.get() < 0 || ::fstat(f.fd.get(), &st) != 0) {
    f.error = errno;
    f.fd.reset();
    return f;
  }
  if (!S_ISREG(st.st_mode)) {
    f.not_regular = file_type_name(st.st_mode);
    f.fd.reset();
    return f;
  }
  const int flags = ::fcntl(f.fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(f.fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    f.error = errno;
    f.fd.reset();
    return f;
  }
  f.size = static_cast<std::uint64_t>(st.st_size);
  return f;
}

/// The size of an open regular file, or -errno.
inline std::int64_t file_size(int fd) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -errno;
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace hipfile::safetensors::detail
