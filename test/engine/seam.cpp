// SPDX-License-Identifier: MIT
#include "seam.hpp"

#include <cerrno>
#include <unistd.h>

namespace hipfile::test {

namespace {

// Decides what one call does: -1 with errno for an injected failure, else how many bytes it may move.
ssize_t admit(std::size_t count) {
  SyscallScript& s = *ScopedSyscalls::current();
  int n = s.calls.fetch_add(1);
  if (s.eintr_every_other && n % 2 == 0) {
    errno = EINTR;
    return -1;
  }
  int after = s.fail_after.load();
  if (after >= 0 && n >= after) {
    errno = s.fail_errno.load();
    return -1;
  }
  int cap = s.max_chunk.load();
  return static_cast<ssize_t>(cap > 0 && count > static_cast<std::size_t>(cap) ? cap : count);
}

void note_fd(int fd) {
  SyscallScript& s = *ScopedSyscalls::current();
  std::lock_guard lock(s.mu);
  s.fds_used.insert(fd);
}

ssize_t fake_pread(int fd, void* buf, size_t count, off_t offset) {
  ssize_t allowed = admit(count);
  if (allowed < 0) return -1;
  note_fd(fd);
  return ::pread(fd, buf, static_cast<size_t>(allowed), offset);
}

ssize_t fake_pwrite(int fd, const void* buf, size_t count, off_t offset) {
  ssize_t allowed = admit(count);
  if (allowed < 0) return -1;
  note_fd(fd);
  return ::pwrite(fd, buf, static_cast<size_t>(allowed), offset);
}

}  // namespace

SyscallScript*& ScopedSyscalls::current() {
  static SyscallScript* script = nullptr;
  return script;
}

ScopedSyscalls::ScopedSyscalls() {
  current() = new SyscallScript;
  sys::ops.pread = fake_pread;
  sys::ops.pwrite = fake_pwrite;
}

ScopedSyscalls::~ScopedSyscalls() {
  sys::reset_ops();
  delete current();
  current() = nullptr;
}

}  // namespace hipfile::test
