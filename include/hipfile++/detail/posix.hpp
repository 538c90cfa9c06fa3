// SPDX-License-Identifier: MIT
/**
 * @file detail/posix.hpp
 * @brief Internal: the few POSIX calls the headers make (open with an O_DIRECT preference,
 *        close, fstat). Not part of the API.
 */
#pragma once

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace hipfile::detail {

/// open(2) retried on EINTR. Returns the fd, or -1 with errno set.
inline int open_retry(const char* path, int flags, mode_t mode) noexcept {
  int fd;
  do {
    fd = ::open(path, flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

/// BLKGETSIZE64 of <linux/fs.h> (which clashes with <sys/mount.h>): a block device's bytes.
inline constexpr unsigned long kBlockDeviceBytes = _IOR(0x12, 114, std::size_t);

/// An exclusive create (O_CREAT | O_EXCL in `flags`) with O_DIRECT where the file system allows
/// it: the file is created without O_DIRECT, so that O_EXCL keeps its meaning (this call made
/// the file), and O_DIRECT is added with fcntl(2) after. Where the file system refuses O_DIRECT:
/// with `direct_required` the file just created is removed again and -1 is returned with errno
/// EINVAL; otherwise the buffered descriptor is returned.
inline int create_exclusive(const char* path, int flags, mode_t mode, bool direct_required) noexcept {
  const int fd = open_retry(path, flags & ~O_DIRECT, mode);
  if (fd < 0) return -1;
  const int now = ::fcntl(fd, F_GETFL);
  if (now >= 0 && ::fcntl(fd, F_SETFL, now | O_DIRECT) == 0) return fd;
  if (!direct_required) return fd;
  const int err = errno;
  (void)::unlink(path);
  (void)::close(fd);
  errno = err;
  return -1;
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
