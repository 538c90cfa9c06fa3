// SPDX-License-Identifier: MIT
#include "helpers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

bool supports_odirect(const std::string& path) {
  const int probe = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (probe < 0) return false;
  ::close(probe);
  return true;
}

bool make_cold(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  (void)::fdatasync(fd);
  // Pages read a moment ago may still sit in another CPU's LRU batch, where DONTNEED cannot drop
  // them (seen once in CI on a loaded 2-core machine): ask again for a little while.
  bool cold = false;
  for (int attempt = 0; attempt < 20 && !cold; ++attempt) {
    if (attempt > 0) ::usleep(10000);
    (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    char byte;
    iovec v{&byte, 1};
    cold = ::preadv2(fd, &v, 1, 0, RWF_NOWAIT) < 0 && errno == EAGAIN;
  }
  ::close(fd);
  return cold;
}

void check_padded_read(hipFileHandle_t handle, const std::vector<std::byte>& file, off_t offset, std::size_t size) {
  constexpr std::size_t pad = 4096;
  constexpr std::byte guard{0x5a};
  DeviceMem mem(size + 2 * pad);
  fill_device(mem.get(), static_cast<int>(guard), mem.size());
  const std::size_t left = file.size() > static_cast<std::size_t>(offset) ? file.size() - static_cast<std::size_t>(offset) : 0;
  const std::size_t want = std::min(size, left);
  REQUIRE(hipFileRead(handle, mem.bytes() + pad, size, offset, 0) == static_cast<ssize_t>(want));
  std::vector<std::byte> expect(mem.size(), guard);
  std::copy(file.begin() + offset, file.begin() + offset + static_cast<off_t>(want), expect.begin() + pad);
  CHECK(to_host(mem.get(), mem.size()) == expect);
}

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

void* allocate_at(void* want, std::size_t size) {
  std::vector<void*> others;
  void* found = nullptr;
  for (int i = 0; i < 16 && found == nullptr; ++i) {
    void* q = nullptr;
    REQUIRE(hipMalloc(&q, size) == hipSuccess);
    if (q == want) found = q;
    else others.push_back(q);
  }
  for (void* q : others) REQUIRE(hipFree(q) == hipSuccess);
  return found;
}

}  // namespace hipfile::test
