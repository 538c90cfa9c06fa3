// SPDX-License-Identifier: MIT
// The mapped read path: large reads of page-cache-resident files into device memory are copied
// by the GPU straight from pinned page-cache pages. Checked byte for byte, with canaries, and
// shown to be taken (or not) through hip-cpu's call counts.
#include <fcntl.h>
#include <sys/mman.h>

#include <atomic>
#include <thread>

#include "../c_api/helpers.hpp"
#include "sys/page_cache.hpp"
#include "all_resident.hpp"
#include "seam.hpp"
#include "trace_file.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>

#include <atomic>

using namespace hipfile::test;

namespace {
constexpr std::size_t kMiB = 1u << 20;

// Reads [off, off + len) of `path` into the middle of a canary-filled device allocation and
// checks the canaries and the bytes. Returns the read's result.
ssize_t read_checked(const Registered& r, std::size_t len, off_t off, const std::vector<std::byte>& file) {
  const std::size_t pad = 8192;
  DeviceMem mem(len + 2 * pad);
  fill_device(mem.get(), 0x5c, mem.size());
  ssize_t n = hipFileRead(r.handle, mem.bytes() + pad, len, off, 0);
  auto back = to_host(mem.get(), mem.size());
  const std::size_t got = n > 0 ? static_cast<std::size_t>(n) : 0;
  std::vector<std::byte> expect(mem.size(), std::byte{0x5c});
  std::copy(file.begin() + off, file.begin() + off + static_cast<off_t>(got), expect.begin() + pad);
  CHECK(back == expect);
  return n;
}
}  // namespace

TEST_CASE("A large read of a cached file goes through pinned page-cache pages", "[mapped]") {
  ClosedDriver guard;
  AllResident cached;
  const std::size_t n = 40 * kMiB + 4097;
  TempFile f(n, 91);  // just written: in the page cache
  const auto file = pattern(n, 91);
  Registered r(f.path(), O_RDONLY);
  const off_t off = GENERATE(0, 12345, 4096);
  CAPTURE(off);
  hipcpuResetCallCounts();
  CHECK(read_checked(r, n - off, off, file) == static_cast<ssize_t>(n - off));
  CHECK(hipcpuCallCount("hipHostRegister") > 0);
  CHECK(hipcpuCallCount("hipHostUnregister") == hipcpuCallCount("hipHostRegister"));
}

TEST_CASE("A mapped read past the end of file returns the short count", "[mapped]") {
  ClosedDriver guard;
  AllResident cached;
  const std::size_t n = 36 * kMiB + 100;
  TempFile f(n, 92);
  const auto file = pattern(n, 92);
  Registered r(f.path(), O_RDONLY);
  hipcpuResetCallCounts();
  // Ask for more than the file holds: only the file's bytes arrive.
  const std::size_t pad = 8192, want = 40 * kMiB;
  DeviceMem mem(want + 2 * pad);
  fill_device(mem.get(), 0x5c, mem.size());
  REQUIRE(hipFileRead(r.handle, mem.bytes() + pad, want, 0, 0) == static_cast<ssize_t>(n));
  CHECK(hipcpuCallCount("hipHostRegister") > 0);
  auto back = to_host(mem.get(), mem.size());
  std::vector<std::byte> expect(mem.size(), std::byte{0x5c});
  std::copy(file.begin(), file.end(), expect.begin() + pad);
  CHECK(back == expect);
}

TEST_CASE("When pinning page-cache pages fails the read is staged and still exact", "[mapped]") {
  ClosedDriver guard;
  AllResident cached;
  const std::size_t n = 48 * kMiB;
  TempFile f(n, 93);
  const auto file = pattern(n, 93);
  Registered r(f.path(), O_RDONLY);
  hipcpuInjectFault("hipHostRegister", 1, 1, hipErrorOutOfMemory);
  CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
  hipcpuClearFaults();
  hipcpuResetCallCounts();
  CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
  CHECK(hipcpuCallCount("hipHostRegister") == 0);  // this file is staged from now on
}

TEST_CASE("Small reads and HIPFILE_MAPPED_READS=false stage; O_DIRECT clients map", "[mapped]") {
  ClosedDriver guard;
  AllResident cached;  // they stage although every page is resident
  const std::size_t n = 40 * kMiB;
  TempFile f(n, 94);
  const auto file = pattern(n, 94);
  SECTION("below the threshold") {
    Registered r(f.path(), O_RDONLY);
    hipcpuResetCallCounts();
    CHECK(read_checked(r, 8 * kMiB, 0, file) == static_cast<ssize_t>(8 * kMiB));
    CHECK(hipcpuCallCount("hipHostRegister") == 0);
  }
  SECTION("an O_DIRECT client of a resident file maps too: O_DIRECT would read the disk again") {
    if (!supports_odirect(f.path())) return;
    Registered r(f.path(), O_RDONLY | O_DIRECT);
    hipcpuResetCallCounts();
    CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
    CHECK(hipcpuCallCount("hipHostRegister") > 0);
  }
  SECTION("switched off") {
    ClosedDriver::close_all();
    ::setenv("HIPFILE_MAPPED_READS", "false", 1);
    {
      Registered r(f.path(), O_RDONLY);
      hipcpuResetCallCounts();
      CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
      CHECK(hipcpuCallCount("hipHostRegister") == 0);
    }
    ::unsetenv("HIPFILE_MAPPED_READS");
  }
}

namespace {

// What `reads` reads of [off, n) of a cached file did on an engine of three workers shaped by
// `adjust` (fixed choices, not variables): per read, whether page-cache pages were pinned, and
// how many workers took part (from HIPFILE_TRACE_FILE). Each read is checked byte for byte.
using Way = std::pair<bool, long long>;
using Adjust = void (*)(hipfile::engine::Config&);
std::vector<Way> ways_of_reads(Adjust adjust, std::size_t n, off_t off, std::size_t reads, int seed) {
  TempFile f(n, seed);
  TempFile trace;
  const auto file = pattern(n, seed);
  std::vector<bool> pinned;
  {
    ScopedEnv env{{"HIPFILE_THREADS", "3"}, {"HIPFILE_TRACE_FILE", trace.c_str()}};
    ScopedConfig shape(adjust);
    ClosedDriver guard;
    AllResident cached;
    hipfile::sys::ask_mincore_only(true);  // a staged read's residency check sees AllResident too
    {
      Registered r(f.path(), O_RDONLY);
      for (std::size_t i = 0; i < reads; ++i) {
        hipcpuResetCallCounts();
        CHECK(read_checked(r, n - static_cast<std::size_t>(off), off, file) == static_cast<ssize_t>(n) - off);
        pinned.push_back(hipcpuCallCount("hipHostRegister") > 0);
      }
    }
    ClosedDriver::close_all();  // the last close writes the trace
    hipfile::sys::ask_mincore_only(false);
  }
  const Trace t = read_trace(trace.path());
  REQUIRE(t.requests.size() >= reads);  // the trace of the process so far: these reads are the last
  const std::size_t first = t.requests.size() - reads;
  std::vector<Way> ways;
  for (std::size_t i = 0; i < reads; ++i) ways.emplace_back(pinned[i], t.requests[first + i][3]);
  return ways;
}

}  // namespace

TEST_CASE("map_alone leaves a mapped read to its mapper; without it stagers join", "[mapped]") {
  const bool alone = GENERATE(true, false);
  CAPTURE(alone);
  const Adjust adjust = alone ? +[](hipfile::engine::Config& c) { c.map_alone = true; }
                              : +[](hipfile::engine::Config& c) { c.map_alone = false; };
  const auto ways = ways_of_reads(adjust, 40 * kMiB + 4097, 12345, 1, 97);
  CHECK(ways == std::vector<Way>{{true, alone ? 1 : 3}});  // pinned; participants
}

// An engine of few workers reads a cached file each way once (the fixed policy's first: the
// mapped read with stagers beside it), then the fastest it measured. The first read does not
// count: its workers made their lanes. Told apart by what was pinned and who took part.
TEST_CASE("An engine of three workers tries mapped, mapped alone and staged, then keeps to one", "[mapped]") {
  const bool tune = GENERATE(true, false);
  CAPTURE(tune);
  const Adjust adjust = tune ? +[](hipfile::engine::Config& c) { c.tune_read_path = true; }
                             : +[](hipfile::engine::Config& c) { c.tune_read_path = false; };
  const auto ways = ways_of_reads(adjust, 40 * kMiB + 8192, 4096, 7, 98);
  const Way beside{true, 3}, alone{true, 1}, staged{false, 3};
  if (!tune) {
    CHECK(ways == std::vector<Way>(7, beside));
    return;
  }
  CHECK(std::vector<Way>(ways.begin(), ways.begin() + 4) == std::vector<Way>{beside, beside, alone, staged});
  // Then the fastest of the three, the same each time (the next measurement of a slower path is
  // eight choices later).
  CHECK((ways[4] == beside || ways[4] == alone || ways[4] == staged));
  CHECK(ways[5] == ways[4]);
  CHECK(ways[6] == ways[4]);
}

TEST_CASE("A file not in the page cache is staged", "[mapped][environment]") {
  ClosedDriver guard;
  const std::size_t n = 40 * kMiB;
  TempFile f(n, 95);
  const auto file = pattern(n, 95);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  // Did the kernel really drop the pages? (tmpfs, for one, keeps them.)
  fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  void* p = ::mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(p != MAP_FAILED);
  std::vector<unsigned char> resident(n / 4096);
  REQUIRE(::mincore(p, n, resident.data()) == 0);
  ::munmap(p, n);
  ::close(fd);
  if (resident[0] != 0) HIPFILE_SKIP("the file system in " << test_dir() << " keeps pages resident");
  Registered r(f.path(), O_RDONLY);
  hipcpuResetCallCounts();
  CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
  CHECK(hipcpuCallCount("hipHostRegister") == 0);
}
TEST_CASE("A file that shrinks during a mapped read gives a short count, never SIGBUS", "[mapped]") {
  ::setenv("HIPFILE_THREADS", "2", 1);
  ScopedConfig small_steps([](hipfile::engine::Config& c) { c.map_chunk = 2u << 20; });
  ClosedDriver guard;
  const std::size_t n = 128 * kMiB, shrunk = 8 * kMiB + 12345;
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    TempFile f(n, 96);
    const auto file = pattern(n, 96);
    Registered r(f.path(), O_RDONLY);
    DeviceMem mem(n);
    hipcpuResetCallCounts();
    // Truncate as soon as the first piece is being pinned: later pieces are past the new end.
    std::atomic<bool> done{false};
    std::thread cutter([&] {
      while (!done && hipcpuCallCount("hipHostRegister") < 1 + static_cast<unsigned>(round)) std::this_thread::yield();
      REQUIRE(::truncate(f.c_str(), static_cast<off_t>(shrunk)) == 0);
    });
    const ssize_t got = hipFileRead(r.handle, mem.get(), n, 0, 0);
    done = true;
    cutter.join();
    CHECK(hipcpuCallCount("hipHostRegister") > 0);  // the mapped path was taken
    REQUIRE(got >= 0);
    REQUIRE(static_cast<std::size_t>(got) <= n);
    const auto m = static_cast<std::size_t>(got);
    CHECK(to_host(mem.get(), m) == std::vector<std::byte>(file.begin(), file.begin() + static_cast<off_t>(m)));
  }
  ::unsetenv("HIPFILE_THREADS");
}
#endif
