// SPDX-License-Identifier: MIT
#include "sys/posix.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>

namespace hipfile::sys {

namespace {
int open_path(const char* path, int flags) { return ::open(path, flags); }
constexpr Ops kDefaultOps{::pread, ::pwrite, ::fdatasync, open_path, ::posix_fadvise};
}

Ops ops = kDefaultOps;

void reset_ops() noexcept { ops = kDefaultOps; }

ssize_t pread_full(int fd, void* buf, size_t count, off_t offset) noexcept {
  auto* p = static_cast<char*>(buf);
  size_t done = 0;
  while (done < count) {
    ssize_t n = ops.pread(fd, p + done, count - done, offset + static_cast<off_t>(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) break;  // end of file
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

Written pwrite_full(int fd, const void* buf, size_t count, off_t offset) noexcept {
  const auto* p = static_cast<const char*>(buf);
  Written w;
  while (w.bytes < count) {
    ssize_t n = ops.pwrite(fd, p + w.bytes, count - w.bytes, offset + static_cast<off_t>(w.bytes));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      w.error = errno;
      break;
    }
    // A zero-byte write with no error would loop forever; the kernel only does this when it
    // cannot make progress, which the caller must hear about.
    if (n == 0) {
      w.error = EIO;
      break;
    }
    w.bytes += static_cast<size_t>(n);
  }
  return w;
}

int describe(int fd, FileInfo& out) noexcept {
  if (fd < 0) return -EBADF;
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0) return -errno;
  out.flags = flags;
  struct statx stx {};
  unsigned mask = STATX_TYPE | STATX_MODE | STATX_INO;
#ifdef STATX_DIOALIGN
  mask |= STATX_DIOALIGN;
#endif
  if (::statx(fd, "", AT_EMPTY_PATH, mask, &stx) == 0) {
    out.regular = S_ISREG(stx.stx_mode);
    out.block = S_ISBLK(stx.stx_mode);
    out.dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
    out.ino = stx.stx_ino;
#ifdef STATX_DIOALIGN
    if (stx.stx_mask & STATX_DIOALIGN) {
      out.dio_offset_align = stx.stx_dio_offset_align;
      out.dio_mem_align = stx.stx_dio_mem_align;
    }
#endif
    return 0;
  }
  // statx can be filtered (seccomp) even where fstat works.
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -errno;
  out.regular = S_ISREG(st.st_mode);
  out.block = S_ISBLK(st.st_mode);
  out.dev = st.st_dev;
  out.ino = st.st_ino;
  return 0;
}

int reopen(int fd, int client_flags, bool direct) noexcept {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  int flags = (client_flags & O_ACCMODE) | O_CLOEXEC | (client_flags & O_NOATIME);
  if (direct) flags |= O_DIRECT;
  for (;;) {
    int r = ops.open(path, flags);
    if (r >= 0) return r;
    if (errno == EINTR) continue;
    if (errno == EPERM && (flags & O_NOATIME)) {  // O_NOATIME needs ownership
      flags &= ~O_NOATIME;
      continue;
    }
    return -errno;
  }
}

}  // namespace hipfile::sys

namespace hipfile::sys {

int duplicate(int fd) noexcept {
  int r = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  return r >= 0 ? r : -errno;
}

}  // namespace hipfile::sys
