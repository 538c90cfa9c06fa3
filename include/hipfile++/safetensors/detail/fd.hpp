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

/// The size of an open regular file, or -errno.
inline std::int64_t file_size(int fd) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -errno;
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace hipfile::safetensors::detail
