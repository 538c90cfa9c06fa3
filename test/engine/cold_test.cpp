// SPDX-License-Identifier: MIT
// Cold buffered reads: when a large read looks cold (sys::read_looks_cold), the engine asks the
// kernel for a window ahead of its workers (posix_fadvise WILLNEED). The bytes must be exactly
// the file's, at any offset, up to and past the end of the file.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "../c_api/helpers.hpp"
#include "io/config.hpp"
#include "sys/page_cache.hpp"
#include "sys/posix.hpp"

using namespace hipfile::test;

namespace {
constexpr std::size_t kMiB = 1u << 20;
}  // namespace

TEST_CASE("Cold buffered reads through the workers return the file's bytes", "[cold]") {
  ClosedDriver guard;
  ::setenv("HIPFILE_THREADS", "4", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "256k", 1);  // many chunks, so the prefetch window moves
  ::setenv("HIPFILE_MAPPED_READS", "0", 1);
  const std::size_t n = 40 * kMiB + 1234;
  TempFile f(n, 91);
  const auto file = read_file(f.path());
  struct Case {
    off_t offset;
    std::size_t size;
  };
  const Case c = GENERATE(Case{0, 40 * kMiB}, Case{4097, 24 * kMiB + 3}, Case{static_cast<off_t>(n - 5 * kMiB), 8 * kMiB});
  CAPTURE(c.offset, c.size);
  const bool cold = make_cold(f.path());
  // Not cold, the read is a warm one, still checked byte for byte: a note, not a skip.
  if (!cold) WARN("the file system kept the pages; the read below is not a cold one");
  {
    Registered r(f.path(), O_RDONLY);
    check_padded_read(r.handle, file, c.offset, c.size);
  }
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_MAPPED_READS"}) ::unsetenv(v);
}

TEST_CASE("A cold file whose first pages a small read brought in still looks cold", "[cold][environment]") {
  const std::size_t n = 40 * kMiB;
  TempFile f(n, 92);
  if (!make_cold(f.path())) HIPFILE_SKIP("the file system in " << test_dir() << " keeps its pages");
  const int fd = ::open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  // What a checkpoint loader does first: read the 8-byte header length, then the header. The
  // kernel's readahead behind it caches the start of the data too.
  std::vector<char> header(8192);
  REQUIRE(::pread(fd, header.data(), header.size(), 0) == static_cast<ssize_t>(header.size()));
  const off_t data = 8192, window = 8 * kMiB;
  CHECK(hipfile::sys::byte_cached(fd, data));  // the old test, on the data's first byte, said hot
  CHECK(hipfile::sys::read_looks_cold(fd, data, static_cast<off_t>(n), window));
  // Read whole, the file is hot everywhere the probe looks.
  std::vector<char> all(n);
  REQUIRE(::pread(fd, all.data(), n, 0) == static_cast<ssize_t>(n));
  CHECK_FALSE(hipfile::sys::read_looks_cold(fd, data, static_cast<off_t>(n), window));
  CHECK_FALSE(hipfile::sys::read_looks_cold(fd, data, data, window));  // an empty read never is
  ::close(fd);
  // And the engine reads such a file right.
  ClosedDriver guard;
  ::setenv("HIPFILE_THREADS", "4", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "256k", 1);
  ::setenv("HIPFILE_MAPPED_READS", "0", 1);
  REQUIRE(make_cold(f.path()));
  {
    Registered r(f.path(), O_RDONLY);
    REQUIRE(::pread(r.fd, header.data(), header.size(), 0) == static_cast<ssize_t>(header.size()));
    check_padded_read(r.handle, pattern(n, 92), data, n - static_cast<std::size_t>(data));
  }
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_MAPPED_READS"}) ::unsetenv(v);
}

namespace {

// Every WILLNEED the engine asks for, recorded and passed on to the kernel.
struct AdviceLog {
  std::mutex mu;
  std::vector<std::pair<off_t, off_t>> ranges;  // [offset, end)
};
AdviceLog* advice_log = nullptr;
const std::vector<std::pair<off_t, off_t>> kNotCold{{-1, -1}};

int recording_fadvise(int fd, off_t offset, off_t len, int advice) {
  if (advice == POSIX_FADV_WILLNEED && advice_log) {
    std::lock_guard lock(advice_log->mu);
    advice_log->ranges.emplace_back(offset, offset + len);
  }
  return ::posix_fadvise(fd, offset, len, advice);
}

// The window is a fixed choice, not a variable: the test shapes it through the config seam.
std::size_t test_window = 0;

// Reads [offset, offset + size) of a cold file with a prefetch window of `window` bytes and
// returns the ranges advised; the bytes are checked.
std::vector<std::pair<off_t, off_t>> advised_during_cold_read(std::size_t window, off_t offset, std::size_t size) {
  const std::size_t n = 40 * kMiB;
  TempFile f(n, 93);
  ClosedDriver guard;
  ::setenv("HIPFILE_THREADS", "4", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "256k", 1);
  ::setenv("HIPFILE_MAPPED_READS", "0", 1);
  test_window = window;
  hipfile::engine::Config::adjust_for_test([](hipfile::engine::Config& c) { c.prefetch_window = test_window; });
  AdviceLog log;
  advice_log = &log;
  hipfile::sys::ops.fadvise = recording_fadvise;
  const bool cold = make_cold(f.path());
  {
    Registered r(f.path(), O_RDONLY);
    check_padded_read(r.handle, pattern(n, 93), offset, size);
  }
  hipfile::sys::reset_ops();
  advice_log = nullptr;
  hipfile::engine::Config::adjust_for_test(nullptr);
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_MAPPED_READS"}) ::unsetenv(v);
  if (!cold) return kNotCold;  // the file system kept the pages: nothing to say about advice
  return log.ranges;
}

}  // namespace

TEST_CASE("The prefetch window sets how far a cold read asks ahead, and 0 asks nothing", "[cold][environment]") {
  const off_t offset = 4097;
  const std::size_t size = 24 * kMiB + 3;
  const off_t end = offset + static_cast<off_t>(size);
  SECTION("a 1 MiB window: every piece of the read is asked for, no piece is longer than the window") {
    auto ranges = advised_during_cold_read(std::size_t{1} << 20, offset, size);
    if (ranges == kNotCold) HIPFILE_SKIP("the file system in " << test_dir() << " kept the pages");
    REQUIRE(!ranges.empty());
    std::sort(ranges.begin(), ranges.end());
    CHECK(ranges.front().first == offset);
    off_t covered = offset;
    for (auto [a, b] : ranges) {
      CHECK(b - a <= off_t{1} << 20);
      CHECK(a >= offset);
      CHECK(b <= end);
      CHECK(a <= covered);  // no hole between what was asked
      covered = std::max(covered, b);
    }
    CHECK(covered == end);
  }
  SECTION("0: the read asks for nothing and still returns the file's bytes") {
    auto ranges = advised_during_cold_read(0, offset, size);
    if (ranges == kNotCold) HIPFILE_SKIP("the file system in " << test_dir() << " kept the pages");
    CHECK(ranges.empty());
  }
}
