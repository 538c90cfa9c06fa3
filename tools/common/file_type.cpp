// SPDX-License-Identifier: MIT
#include "file_type.hpp"

#include "printable.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hipfile::tools {

std::string non_regular_kind(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string regular_file_problem(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "cannot stat " + printable(path) + ": " + std::strerror(errno);
  const std::string kind = non_regular_kind(st.st_mode);
  return kind.empty() ? "" : printable(path) + " is " + kind + ", not a regular file";
}

int open_regular(const std::string& path, int flags, mode_t mode, std::string& problem) {
  int fd = -1;
  do fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, mode);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int saved = errno;  // the caller may act on it (EINVAL: O_DIRECT refused)
    problem = "cannot open " + printable(path) + ": " + std::strerror(saved);
    errno = saved;
    return -1;
  }
  problem = regular_file_problem(fd, path);
  if (problem.empty() && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    problem = "fcntl " + printable(path) + ": " + std::strerror(errno);
  if (problem.empty()) return fd;
  ::close(fd);
  errno = 0;
  return -1;
}

}  // namespace hipfile::tools
