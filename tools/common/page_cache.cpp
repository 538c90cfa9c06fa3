// SPDX-License-Identifier: MIT
#include "page_cache.hpp"

#include "errors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <thread>
#include <vector>

namespace hipfile::tools {

void drop_from_cache(int fd, const std::string& path) {
  // Dirty pages cannot be dropped; without the flush a "cold" pass after a write reads RAM.
  if (fdatasync(fd) != 0 && errno != EINVAL)
    throw Failure{fmt::format("fdatasync {}: {}", path, std::strerror(errno))};
  int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  if (rc != 0) throw Failure{fmt::format("posix_fadvise(DONTNEED) {}: {}", path, std::strerror(rc))};
}

namespace {

// Reads the ranges in blocks with `threads` readers; without_readahead: nothing past them is
// read ahead into the cache (POSIX_FADV_RANDOM on the readers' descriptor).
void read_ranges(const std::string& path, const std::vector<ByteRange>& ranges, unsigned threads,
                 bool without_readahead) {
  constexpr std::uint64_t kBlock = 8u << 20;
  std::vector<ByteRange> blocks;  // the ranges cut into reads of at most kBlock
  for (const ByteRange& r : ranges)
    for (std::uint64_t off = 0; off < r.length; off += kBlock)
      blocks.push_back({r.offset + off, std::min(kBlock, r.length - off)});
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Failure{fmt::format("open {}: {}", path, std::strerror(errno))};
  if (without_readahead) (void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
  std::atomic<std::size_t> next{0};
  std::atomic<int> error{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, threads); ++t)
    pool.emplace_back([&] {
      std::vector<char> buf(kBlock);
      for (std::size_t i = next++; i < blocks.size(); i = next++) {
        if (pread(fd, buf.data(), static_cast<std::size_t>(blocks[i].length), static_cast<off_t>(blocks[i].offset)) < 0) {
          error = errno;
          return;
        }
      }
    });
  for (auto& t : pool) t.join();
  close(fd);
  if (error != 0) throw Failure{fmt::format("pre-reading {}: {}", path, std::strerror(error))};
}

}  // namespace

void load_into_cache(const std::string& path, std::uint64_t length, unsigned threads) {
  read_ranges(path, {ByteRange{0, length}}, threads, false);
}

void load_ranges_into_cache(const std::string& path, const std::vector<ByteRange>& ranges, unsigned threads) {
  read_ranges(path, ranges, threads, true);
}

double resident_fraction(int fd, std::uint64_t length) {
  if (length == 0) return 1.0;
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return -1;
  long page = sysconf(_SC_PAGESIZE);
  std::size_t pages = (length + page - 1) / page;
  std::vector<unsigned char> vec(pages);
  double fraction = -1;
  if (mincore(map, length, vec.data()) == 0)
    fraction = static_cast<double>(std::count_if(vec.begin(), vec.end(), [](unsigned char v) { return v & 1; })) /
               static_cast<double>(pages);
  munmap(map, length);
  return fraction;
}

}  // namespace hipfile::tools
