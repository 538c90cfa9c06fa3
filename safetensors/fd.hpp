// SPDX-License-Identifier: MIT
/**
 * @file fd.hpp
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

#include <hipfile++/detail/posix.hpp>

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
  /// Gives the descriptor up to the caller, who closes it.
  [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

/// pread(2) of exactly @p n bytes, retried on EINTR and short counts. Returns 0, errno, or
/// ENODATA when the file ends first.
int pread_exact(int fd, void* dst, std::size_t n, std::uint64_t offset) noexcept;

/// pwrite(2) of all @p n bytes, retried on EINTR and short counts. Returns 0 or errno.
int pwrite_all(int fd, const void* src, std::size_t n, std::uint64_t offset) noexcept;

/// A file opened for reading by open_regular(): its descriptor and size, or why not.
struct OpenedFile {
  UniqueFd fd;
  std::uint64_t size = 0;
  int error = 0;                     ///< errno of a failed open, fstat or fcntl
  const char* not_regular = nullptr; ///< "a FIFO", "a directory", ...: what it is instead
};

/// "a directory", "a FIFO", ...: what a file that is not a regular one is.
const char* file_type_name(mode_t mode) noexcept;

/// Opens @p path read-only and requires a regular file. O_NONBLOCK keeps the open of a FIFO
/// from waiting forever for a writer; it is cleared again once the file is known to be regular.
OpenedFile open_regular(const std::string& path) noexcept;

/// The size of an open regular file, or -errno.
std::int64_t file_size(int fd) noexcept;

}  // namespace hipfile::safetensors::detail
