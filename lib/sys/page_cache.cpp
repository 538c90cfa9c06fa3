// SPDX-License-Identifier: MIT
#include "sys/page_cache.hpp"

#include <errno.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace hipfile::sys {

namespace {

// cachestat(2)'s number is the same on every architecture (the generic table); the C library's
// headers name it only from glibc 2.39.
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

struct CachestatRange {
  std::uint64_t off, len;
};
struct Cachestat {
  std::uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

std::atomic<bool> no_cachestat{false};  // the kernel (or a seccomp filter) refused it once
std::atomic<bool> mincore_only{false};  // tests

std::size_t page_size() noexcept {
  static const auto size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

// 1: all cached, 0: not, -1: cachestat is not there.
int by_cachestat(int fd, off_t first, std::size_t span, std::size_t pages) noexcept {
  if (no_cachestat.load(std::memory_order_relaxed) || mincore_only.load(std::memory_order_relaxed)) return -1;
  CachestatRange range{static_cast<std::uint64_t>(first), span};
  Cachestat cs{};
  if (::syscall(SYS_cachestat, fd, &range, &cs, 0) == 0) return cs.nr_cache >= pages ? 1 : 0;
  if (errno == ENOSYS || errno == EPERM) {
    no_cachestat.store(true, std::memory_order_relaxed);
    return -1;
  }
  return 0;
}

bool by_mincore(int fd, off_t first, std::size_t span) noexcept {
  void* p = ::mmap(nullptr, span, PROT_READ, MAP_SHARED, fd, first);
  if (p == MAP_FAILED) return false;
  const bool all = mapping_resident(p, span);
  ::munmap(p, span);
  return all;
}

}  // namespace

bool range_cached(int fd, off_t offset, std::size_t length) noexcept {
  if (length == 0 || offset < 0) return false;
  const std::size_t page = page_size();
  const off_t first = offset - offset % static_cast<off_t>(page);
  const std::size_t span = (static_cast<std::size_t>(offset - first) + length + page - 1) / page * page;
  const std::size_t pages = span / page;
  const int answer = by_cachestat(fd, first, span, pages);
  if (answer >= 0) return answer == 1;
  return by_mincore(fd, first, span);
}

bool mapping_resident(const void* p, std::size_t length) noexcept {
  try {
    std::vector<unsigned char> resident((length + page_size() - 1) / page_size());
    bool all = ::mincore(const_cast<void*>(p), length, resident.data()) == 0;
    for (std::size_t i = 0; all && i < resident.size(); ++i) all = (resident[i] & 1) != 0;
    return all;
  } catch (...) {
    return false;  // no memory for the answer: say unknown
  }
}

void ask_mincore_only(bool on) noexcept { mincore_only.store(on, std::memory_order_relaxed); }

bool byte_cached(int fd, off_t offset) noexcept {
  char byte;
  iovec v{&byte, 1};
  const ssize_t n = ::preadv2(fd, &v, 1, offset, RWF_NOWAIT);
  return !(n < 0 && errno == EAGAIN);
}

bool read_looks_cold(int fd, off_t offset, off_t end, off_t window) noexcept {
  if (end <= offset) return false;
  const off_t probes[] = {offset, std::min(end - 1, offset + window), end - 1};
  for (off_t at : probes)
    if (!byte_cached(fd, at)) return true;
  return false;
}

}  // namespace hipfile::sys
