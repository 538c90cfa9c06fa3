// SPDX-License-Identifier: MIT
#include "sys/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace hipfile::sys {

namespace {

// Closes on scope exit unless released.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() noexcept {
    int f = fd;
    fd = -1;
    return f;
  }
};

// The errno of an openat that refused `name` under `dir`: ELOOP when it is a symbolic link (an
// O_DIRECTORY | O_NOFOLLOW open says ENOTDIR for one), else `e`.
int why(int dir, const char* name, int e) noexcept {
  struct stat st {};
  if (::fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) return ELOOP;
  return e;
}

// Opens the directory that holds the last component of `path`, one component at a time, never
// through a symbolic link. `last` is set to the last component.
int open_parent(const std::string& path, std::string& last) noexcept {
  Fd dir;
  dir.fd = ::open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir.fd < 0) return -errno;
  std::size_t at = 0;
  for (;;) {
    while (at < path.size() && path[at] == '/') ++at;
    const std::size_t end = path.find('/', at);
    if (end == std::string::npos) {
      last = path.substr(at);
      break;
    }
    const std::string name = path.substr(at, end - at);
    int next = ::openat(dir.fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) return -why(dir.fd, name.c_str(), errno);
    ::close(dir.fd);
    dir.fd = next;
    at = end + 1;
  }
  if (last.empty() || last == "." || last == "..") return -EISDIR;
  return dir.release();
}

}  // namespace

int open_output_file(const char* path, OutputMode mode) noexcept {
  if (path == nullptr || *path == '\0') return -ENOENT;
  try {
    std::string last;
    Fd dir;
    dir.fd = open_parent(path, last);
    if (dir.fd < 0) return dir.release();
    // O_NONBLOCK: opening a FIFO must not wait for a reader; O_NOCTTY: a terminal is not adopted.
    const int base = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                     (mode == OutputMode::Append ? O_APPEND : 0);
    bool created = true;
    Fd file;
    file.fd = ::openat(dir.fd, last.c_str(), base | O_CREAT | O_EXCL, 0600);
    if (file.fd < 0 && errno == EEXIST) {
      created = false;
      file.fd = ::openat(dir.fd, last.c_str(), base);
    }
    if (file.fd < 0) return -why(dir.fd, last.c_str(), errno);
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) return -errno;
    if (!S_ISREG(st.st_mode)) return -EINVAL;  // a FIFO, a device, a socket: never written
    if (mode == OutputMode::Replace && !created) {
      if (st.st_uid != ::geteuid()) return -EPERM;  // another user's file is not ours to replace
      if (::ftruncate(file.fd, 0) != 0 || ::fchmod(file.fd, 0600) != 0) return -errno;
    }
    const int flags = ::fcntl(file.fd, F_GETFL);
    if (flags >= 0) (void)::fcntl(file.fd, F_SETFL, flags & ~O_NONBLOCK);
    return file.release();
  } catch (...) {
    return -ENOMEM;  // std::string
  }
}

const char* output_file_error(int err) noexcept {
  switch (err) {
    case ELOOP: return "a symbolic link in the path (never followed)";
    case EINVAL: return "not a regular file (FIFOs and devices are never written)";
    case EPERM: return "an existing file owned by another user (never replaced)";
    case ENXIO: return "a FIFO without a reader (never written)";
    default: return std::strerror(err);
  }
}

}  // namespace hipfile::sys
