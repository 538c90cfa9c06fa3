// SPDX-License-Identifier: MIT
// POSIX I/O as the engine uses it: whole-range pread/pwrite loops, the O_DIRECT twin descriptors
// and direct-I/O alignment. Every system call goes through `sys::ops`, the seam that the engine
// tests replace to inject EINTR, short counts and errors.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace hipfile::sys {

/// The system calls the library makes on file data, replaceable by tests.
struct Ops {
  ssize_t (*pread)(int fd, void* buf, size_t count, off_t offset);
  ssize_t (*pwrite)(int fd, const void* buf, size_t count, off_t offset);
  int (*fdatasync)(int fd);
  int (*open)(const char* path, int flags);  // reopen through /proc/self/fd (no O_CREAT)
  int (*fadvise)(int fd, off_t offset, off_t len, int advice);  // cold reads' prefetch window
};

/// The active system-call table. Tests swap entries and restore them with `reset_ops()`.
extern Ops ops;
void reset_ops() noexcept;

/// Reads until `count` bytes arrived or end of file, retrying EINTR and short reads.
/// @return bytes read (less than count only at end of file), or -errno.
ssize_t pread_full(int fd, void* buf, size_t count, off_t offset) noexcept;

/// What pwrite_full moved: the first `bytes` of the range reached the file, then `error` (an
/// errno; EIO where the kernel reported no progress without one) stopped it; 0 when all did.
struct Written {
  size_t bytes = 0;
  int error = 0;
};

/// Writes all `count` bytes, retrying EINTR and short writes. A failure after part of the range
/// was written keeps that part in `bytes`, so the caller reports the prefix that reached the
/// file (POSIX's short count) rather than an error that hides it.
Written pwrite_full(int fd, const void* buf, size_t count, off_t offset) noexcept;

/// What the library needs to know about a client's descriptor.
struct FileInfo {
  bool regular = false;       // S_ISREG
  bool block = false;         // S_ISBLK
  dev_t dev = 0;
  ino_t ino = 0;
  int flags = 0;              // fcntl(F_GETFL)
  std::uint32_t dio_offset_align = 0;  // 0 = unknown
  std::uint32_t dio_mem_align = 0;
};

/// Describes an open descriptor; -errno on failure (EBADF for a closed one).
int describe(int fd, FileInfo& out) noexcept;

/// Opens another descriptor for the file behind `fd` through /proc/self/fd, with the client's
/// access mode, O_CLOEXEC, and O_DIRECT if `direct`; never O_APPEND, O_TRUNC or O_CREAT (a
/// positional write must land where asked, and a reopen must not change the file).
/// @return the new fd, or -errno.
int reopen(int fd, int client_flags, bool direct) noexcept;

/// A duplicate of `fd` (F_DUPFD_CLOEXEC): what serves buffered I/O when the reopen is refused
/// (a descriptor received from a more privileged process, a file made mode 000 after open).
/// It shares the client's open file description, flags included. @return the new fd, or -errno.
int duplicate(int fd) noexcept;

}  // namespace hipfile::sys
