// SPDX-License-Identifier: MIT
/**
 * @file detail/posix.hpp
 * @brief Internal: the few POSIX calls the headers make (open with an O_DIRECT preference,
 *        close, fstat). Not part of the API.
 */
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>

namespace hipfile::detail {

/// open(2) retried on EINTR. Returns the fd, or -1 with errno set.
inline int open_retry(const char* path, int flags, mode_t mode) noexcept {
  int fd;
  do {
    fd = ::open(path, flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

/// close(2) exactly once. Linux releases the descriptor even when close reports EINTR, so a
/// retry could close a descriptor another thread has just been given. Returns 0 or errno.
inline int close_once(int fd) noexcept {
  return ::close(fd) == 0 ? 0 : errno;
}

/// close(2) for teardown paths that cannot report: keeps the caller's errno intact.
inline void close_quietly(int fd) noexcept {
  const int saved = errno;
  (void)::close(fd);
  errno = saved;
}

}  // namespace hipfile::detail
