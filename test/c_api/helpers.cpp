// SPDX-License-Identifier: MIT
#include "helpers.hpp"

#include <dirent.h>
#include <unistd.h>

#include <climits>
#include <string>

namespace hipfile::test {

namespace {
int count_entries(const char* dir) {
  DIR* d = ::opendir(dir);
  if (!d) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 0;
}
}  // namespace

int open_fd_count() { return count_entries("/proc/self/fd") - 1; }  // minus opendir's own fd
int thread_count() { return count_entries("/proc/self/task"); }

int fds_on(const std::string& path) {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char target[PATH_MAX];
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t len = ::readlink(link.c_str(), target, sizeof target - 1);
    if (len > 0 && std::string(target, static_cast<std::size_t>(len)) == path) ++n;
  }
  ::closedir(d);
  return n;
}

}  // namespace hipfile::test
