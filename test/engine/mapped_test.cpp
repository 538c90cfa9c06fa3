// SPDX-License-Identifier: MIT
// The mapped read path: large reads of page-cache-resident files into device memory are copied
// by the GPU straight from pinned page-cache pages. Checked byte for byte, with canaries, and
// shown to be taken (or not) through hip-cpu's call counts.
#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
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
  CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") > 0);
  CHECK(hipcpuCallCount("hipHostUnregister") == hipcpuCallCount("hipHostRegister.ReadOnly"));
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
  CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") > 0);
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
  hipcpuInjectFault("hipHostRegister.ReadOnly", 1, 1, hipErrorOutOfMemory);
  CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
  hipcpuClearFaults();
  hipcpuResetCallCounts();
  CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
  CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") == 0);  // this file is staged from now on
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
    CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") == 0);
  }
  SECTION("an O_DIRECT client of a resident file maps too: O_DIRECT would read the disk again") {
    if (!supports_odirect(f.path())) return;
    Registered r(f.path(), O_RDONLY | O_DIRECT);
    hipcpuResetCallCounts();
    CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
    CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") > 0);
  }
  SECTION("switched off") {
    ClosedDriver::close_all();
    ::setenv("HIPFILE_MAPPED_READS", "false", 1);
    {
      Registered r(f.path(), O_RDONLY);
      hipcpuResetCallCounts();
      CHECK(read_checked(r, n, 0, file) == static_cast<ssize_t>(n));
      CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") == 0);
    }
    ::unsetenv("HIPFILE_MAPPED_READS");
  }
}

namespace {

// The library's log lines written since the last call, read from its HIPFILE_LOG_FILE.
std::string new_log_lines(const std::string& path, std::size_t& seen) {
  const auto bytes = read_file(path);
  std::string all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  std::string fresh = all.substr(std::min(seen, all.size()));
  seen = all.size();
  return fresh;
}

// What `reads` reads of [off, n) of a cached file did on an engine of three workers shaped by
// `adjust` (fixed choices, not variables): per read, whether page-cache pages were pinned, and
// how many workers took part (from HIPFILE_TRACE_FILE). Each read is checked byte for byte. With `seen`, what each
// read showed of the tuner's inputs goes there: its INFO lines (the tuner's announcements) and
// whether a worker made its lane in it (pinned slots: hipHostMalloc), which keeps the read
// from being measured.
using Way = std::pair<bool, long long>;
using Adjust = void (*)(hipfile::engine::Config&);
struct Seen {
  std::string log;
  bool made_lanes = false;
};
std::vector<Way> ways_of_reads(Adjust adjust, std::size_t n, off_t off, std::size_t reads,
                               int seed, std::vector<Seen>* seen_reads = nullptr) {
  TempFile f(n, seed);
  TempFile trace;
  TempFile log;
  const auto file = pattern(n, seed);
  std::vector<bool> pinned;
  {
    ScopedEnv env{{"HIPFILE_THREADS", "3"}, {"HIPFILE_TRACE_FILE", trace.c_str()},
                  {"HIPFILE_LOG_LEVEL", seen_reads ? "INFO" : "WARN"}, {"HIPFILE_LOG_FILE", seen_reads ? log.c_str() : ""}};
    ScopedConfig shape(adjust);
    ClosedDriver guard;
    AllResident cached;
    hipfile::sys::ask_mincore_only(true);  // a staged read's residency check sees AllResident too
    {
      Registered r(f.path(), O_RDONLY);
      std::size_t seen = 0;
      for (std::size_t i = 0; i < reads; ++i) {
        hipcpuResetCallCounts();
        CHECK(read_checked(r, n - static_cast<std::size_t>(off), off, file) == static_cast<ssize_t>(n) - off);
        pinned.push_back(hipcpuCallCount("hipHostRegister.ReadOnly") > 0);
        if (seen_reads) seen_reads->push_back({new_log_lines(log.path(), seen), hipcpuCallCount("hipHostRegister") > hipcpuCallCount("hipHostRegister.ReadOnly")});
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

namespace {

// The ways the tuner's INFO announcements during one read named fastest: those whose rate is the
// highest of the three it logs (rounded to 0.01 GB/s, so a near tie names both). Empty when it
// announced nothing, i.e. kept its fastest.
std::vector<Way> announced_fastest(const std::string& log) {
  const Way beside{true, 3}, alone{true, 1}, staged{false, 3};
  std::vector<Way> best;
  for (std::size_t at = log.find("is now the fastest path"); at != std::string::npos;
       at = log.find("is now the fastest path", at + 1)) {
    const auto rates_at = log.find("; mapped ", at);
    REQUIRE(rates_at != std::string::npos);
    double shared = 0, alone_rate = 0, staged_rate = 0;
    REQUIRE(std::sscanf(log.c_str() + rates_at, "; mapped %lf, mapped alone %lf, staged %lf", &shared, &alone_rate,
                        &staged_rate) == 3);
    const double top = std::max({shared, alone_rate, staged_rate});
    best.clear();
    if (shared == top) best.push_back(beside);
    if (alone_rate == top) best.push_back(alone);
    if (staged_rate == top) best.push_back(staged);
  }
  return best;
}

}  // namespace

// An engine of few workers reads a cached file each way once (the fixed policy's first: the
// mapped read with stagers beside it), then the fastest it measured. A read in which a worker
// made its lane is not measured (pinned allocations cost more than the read): the first always,
// and on a busy machine a later one where a worker joins late. Which way is fastest, and whether
// a later measurement of the chosen way falls below another's, is timing too. So each read is
// checked against the tuner's inputs as the reads before it showed them (lanes made, and the
// fastest way the tuner announced in its INFO log), never against a fixed sequence. Told apart
// by what was pinned and who took part.
TEST_CASE("An engine of three workers tries mapped, mapped alone and staged, then keeps to one", "[mapped]") {
  const bool tune = GENERATE(true, false);
  CAPTURE(tune);
  const Adjust adjust = tune ? +[](hipfile::engine::Config& c) { c.tune_read_path = true; }
                             : +[](hipfile::engine::Config& c) { c.tune_read_path = false; };
  std::vector<Seen> seen;
  const auto ways = ways_of_reads(adjust, 40 * kMiB + 8192, 4096, 7, 98, &seen);
  const Way beside{true, 3}, alone{true, 1}, staged{false, 3};
  if (!tune) {
    CHECK(ways == std::vector<Way>(7, beside));
    return;
  }
  CHECK(seen[0].made_lanes);  // the first read makes the workers' lanes
  // Each way in turn until measured, then the fastest announced (the first measured until an
  // announcement says otherwise). No slower way is measured again within seven reads: the
  // first probe comes eight choices later.
  const std::vector<Way> order{beside, alone, staged};
  std::size_t measured = 0;  // ways of `order` measured so far
  std::vector<Way> fastest;
  for (std::size_t i = 0; i < ways.size(); ++i) {
    CAPTURE(i, seen[i].log, seen[i].made_lanes);
    if (measured < order.size()) {
      CHECK(ways[i] == order[measured]);
    } else {
      CHECK(std::find(fastest.begin(), fastest.end(), ways[i]) != fastest.end());
    }
    if (seen[i].made_lanes) continue;
    if (measured < order.size() && ways[i] == order[measured] && measured++ == 0) fastest = {ways[i]};
    if (auto named = announced_fastest(seen[i].log); !named.empty()) fastest = named;
  }
  CHECK(measured == order.size());  // at most three reads make lanes: seven leave room for all
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
  CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") == 0);
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
      while (!done && hipcpuCallCount("hipHostRegister.ReadOnly") < 1 + static_cast<unsigned>(round)) std::this_thread::yield();
      REQUIRE(::truncate(f.c_str(), static_cast<off_t>(shrunk)) == 0);
    });
    const ssize_t got = hipFileRead(r.handle, mem.get(), n, 0, 0);
    done = true;
    cutter.join();
    CHECK(hipcpuCallCount("hipHostRegister.ReadOnly") > 0);  // the mapped path was taken
    REQUIRE(got >= 0);
    REQUIRE(static_cast<std::size_t>(got) <= n);
    const auto m = static_cast<std::size_t>(got);
    CHECK(to_host(mem.get(), m) == std::vector<std::byte>(file.begin(), file.begin() + static_cast<off_t>(m)));
  }
  ::unsetenv("HIPFILE_THREADS");
}
#endif
