// SPDX-License-Identifier: MIT
#include "helpers.hpp"

#include <dirent.h>

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

}  // namespace hipfile::test
