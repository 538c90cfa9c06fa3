// SPDX-License-Identifier: MIT
// Statistics: exact counters per path and operation after known I/O, levels, reset, the report
// file. Each test starts with the driver closed and the counters zeroed.
#include <hipfile/hipfile_stats.h>
#include <sys/stat.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "../c_api/helpers.hpp"

using namespace hipfile::test;

namespace {

constexpr hipFileOpError_t ok = hipFileSuccess;
constexpr int R = hipFileStatsOpRead, W = hipFileStatsOpWrite;
constexpr int ENG = hipFileStatsPathEngine, HOST = hipFileStatsPathHost;

struct Fresh : ClosedDriver {
  Fresh(int level) {
    REQUIRE(hipFileDriverOpen().err == ok);
    REQUIRE(hipFileDriverClose().err == ok);
    REQUIRE(hipFileStatsReset().err == ok);
    REQUIRE(hipFileSetParameterSizeT(hipFileParamProfileStats, static_cast<size_t>(level)).err == ok);
  }
};

std::unique_ptr<hipFileStatsL3_t> l3() {
  auto s = std::make_unique<hipFileStatsL3_t>();
  REQUIRE(hipFileGetStatsExL3(s.get(), sizeof *s).err == ok);
  return s;
}

// Known I/O: device write 1 MiB + device read 1 MiB (engine), host read 4 KiB (host path), and
// one failing device read (EBADF on a write-only file).
void known_io() {
  const size_t mib = 1u << 20;
  TempFile file(mib);
  {
    Registered r(file.path(), O_RDWR);
    DeviceMem dev(mib);
    to_device(dev.get(), pattern(mib, 3));
    REQUIRE(hipFileWrite(r.handle, dev.get(), mib, 0, 0) == static_cast<ssize_t>(mib));
    REQUIRE(hipFileRead(r.handle, dev.get(), mib, 0, 0) == static_cast<ssize_t>(mib));
    std::vector<std::byte> host(4096);
    REQUIRE(hipFileRead(r.handle, host.data(), host.size(), 0, 0) == 4096);
  }
  Registered wo(file.path(), O_WRONLY);
  DeviceMem dev(4096);
  REQUIRE(hipFileRead(wo.handle, dev.get(), 4096, 0, 0) == -1);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Level 1 counts bytes, operations and errors per path and operation", "[stats]") {
  Fresh fresh(1);
  REQUIRE(hipFileDriverOpen().err == ok);
  int level = -1;
  REQUIRE(hipFileGetStatsLevel(&level).err == ok);
  CHECK(level == 1);
  known_io();
  auto s = l3();
  const auto& p = s->l2.l1.path;
  CHECK(s->l2.l1.version == HIPFILE_STATS_VERSION);
  CHECK(s->l2.l1.level == 1);
  CHECK(p[ENG][W].ops == 1);
  CHECK(p[ENG][W].bytes == 1u << 20);
  CHECK(p[ENG][W].errors == 0);
  CHECK(p[ENG][R].ops == 2);
  CHECK(p[ENG][R].bytes == 1u << 20);
  CHECK(p[ENG][R].errors == 1);
  CHECK(p[HOST][R].ops == 1);
  CHECK(p[HOST][R].bytes == 4096);
  CHECK(p[HOST][W].ops == 0);
  CHECK(p[hipFileStatsPathCufile][R].ops == 0);
  CHECK(p[ENG][R].time_ns > 0);
  CHECK(s->l2.size_hist[ENG][W][20] == 0);  // histograms need level 2
  CHECK(s->device[0][W].ops == 1);          // per device from level 1 since 0.5 (hipFileGetStatsL3)
  CHECK(s->device[0][R].errors == 1);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Level 3 adds histograms and per-device counters; reset zeroes all", "[stats]") {
  Fresh fresh(3);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  auto s = l3();
  CHECK(s->l2.size_hist[ENG][W][20] == 1);
  CHECK(s->l2.size_hist[ENG][R][20] == 1);
  CHECK(s->l2.size_hist[ENG][R][0] == 1);  // the failed read moved 0 bytes
  uint64_t lat = 0;
  for (int b = 0; b < HIPFILE_STATS_BUCKETS; ++b) lat += s->l2.latency_hist[ENG][R][b];
  CHECK(lat == 2);
  CHECK(s->device[0][W].ops == 1);
  CHECK(s->device[0][W].bytes == 1u << 20);
  CHECK(s->device[0][R].ops == 2);
  CHECK(s->device[0][R].errors == 1);

  hipFileStatsL1_t l1{};
  REQUIRE(hipFileGetStatsExL1(&l1, sizeof l1).err == ok);
  CHECK(l1.path[ENG][W].bytes == 1u << 20);
  auto l2 = std::make_unique<hipFileStatsL2_t>();
  REQUIRE(hipFileGetStatsExL2(l2.get(), sizeof *l2).err == ok);
  CHECK(l2->size_hist[ENG][W][20] == 1);

  REQUIRE(hipFileStatsReset().err == ok);
  s = l3();
  CHECK(s->l2.l1.path[ENG][W].ops == 0);
  CHECK(s->l2.size_hist[ENG][W][20] == 0);
  CHECK(s->device[0][R].ops == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Counts are exact from more threads than shards, and survive the threads that made them", "[stats]") {
  // 48 threads at once (more than the shards a thread can own: the rest share one with locked
  // adds), then 40 short-lived threads one after another (each hands its shard to the next).
  Fresh fresh(1);
  REQUIRE(hipFileDriverOpen().err == ok);
  constexpr int together = 48, reads_each = 20, one_by_one = 40;
  TempFile file(4096 * reads_each);
  Registered r(file.path(), O_RDONLY);
  auto reads = [&](int n) {
    std::vector<std::byte> host(4096);
    for (int i = 0; i < n; ++i)
      if (hipFileRead(r.handle, host.data(), host.size(), 4096 * i, 0) != 4096) return false;
    return true;
  };
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < together; ++t)
    threads.emplace_back([&] { if (!reads(reads_each)) ++failed; });
  for (auto& t : threads) t.join();
  for (int t = 0; t < one_by_one; ++t) std::thread([&] { if (!reads(1)) ++failed; }).join();
  CHECK(failed == 0);
  const auto s = l3();
  const auto& host_read = s->l2.l1.path[HOST][R];
  CHECK(host_read.ops == together * reads_each + one_by_one);
  CHECK(host_read.bytes == 4096u * (together * reads_each + one_by_one));
  CHECK(host_read.errors == 0);
  CHECK(s->source[HOST][R].cache_bytes == 4096u * (together * reads_each + one_by_one));
  REQUIRE(hipFileStatsReset().err == ok);
  CHECK(l3()->l2.l1.path[HOST][R].ops == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Level 0 records nothing; the level can change at run time", "[stats]") {
  Fresh fresh(0);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  CHECK(l3()->l2.l1.path[ENG][W].ops == 0);
  REQUIRE(hipFileSetStatsLevel(1).err == ok);
  known_io();
  CHECK(l3()->l2.l1.path[ENG][W].ops == 1);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Stats bad input", "[stats]") {
  CHECK(hipFileGetStatsExL1(nullptr, sizeof(hipFileStatsL1_t)).err == hipFileInvalidValue);
  CHECK(hipFileGetStatsExL2(nullptr, sizeof(hipFileStatsL2_t)).err == hipFileInvalidValue);
  CHECK(hipFileGetStatsExL3(nullptr, sizeof(hipFileStatsL3_t)).err == hipFileInvalidValue);
  hipFileStatsL1_t small{};
  small.version = 77;
  CHECK(hipFileGetStatsExL1(&small, sizeof small - 1).err == hipFileInvalidValue);
  CHECK(small.version == 77);  // nothing written
  CHECK(hipFileGetStatsLevel(nullptr).err == hipFileInvalidValue);
  CHECK(hipFileSetStatsLevel(4).err == hipFileInvalidValue);
  CHECK(hipFileSetStatsLevel(-1).err == hipFileInvalidValue);
  CHECK(hipFileStatsWrite(nullptr).err == hipFileInvalidValue);  // no HIPFILE_STATS_FILE
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("A caller with a larger (newer) struct gets what the library knows, then zeros", "[stats]") {
  Fresh fresh(1);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  struct Newer {
    hipFileStatsL1_t known;
    uint64_t appended[4];
  } n;
  std::memset(&n, 0xab, sizeof n);
  REQUIRE(hipFileGetStatsExL1(&n.known, sizeof n).err == ok);
  CHECK(n.known.version == HIPFILE_STATS_VERSION);
  CHECK(n.known.path[ENG][W].bytes == 1u << 20);
  for (uint64_t v : n.appended) CHECK(v == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("A caller with version 1's hipFileStatsL3_t gets exactly that much", "[stats]") {
  Fresh fresh(1);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  constexpr std::size_t v1 = offsetof(hipFileStatsL3_t, source);  // version 2 appended `source`
  auto buf = std::make_unique<unsigned char[]>(sizeof(hipFileStatsL3_t));
  std::memset(buf.get(), 0x5a, sizeof(hipFileStatsL3_t));
  auto* s = reinterpret_cast<hipFileStatsL3_t*>(buf.get());
  REQUIRE(hipFileGetStatsExL3(s, v1).err == ok);
  CHECK(s->l2.l1.path[ENG][W].bytes == 1u << 20);
  for (std::size_t i = v1; i < sizeof(hipFileStatsL3_t); ++i) CHECK(buf[i] == 0x5a);  // nothing past it
  CHECK(hipFileGetStatsExL3(s, v1 - 1).err == hipFileInvalidValue);
  // The whole struct: the split of the same bytes.
  REQUIRE(hipFileGetStatsExL3(s, sizeof *s).err == ok);
  CHECK(s->source[ENG][W].cache_bytes == 1u << 20);
  CHECK(s->source[ENG][W].direct_bytes == 0);
  CHECK(s->source[hipFileStatsPathHost][hipFileStatsOpRead].cache_bytes == 4096);
  REQUIRE(hipFileStatsReset().err == ok);
  REQUIRE(hipFileGetStatsExL3(s, sizeof *s).err == ok);
  CHECK(s->source[ENG][W].cache_bytes == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("HIPFILE_STATS_FILE gets a 0600 report at the last close", "[stats]") {
  Fresh fresh(1);
  const std::string path = test_dir() + "/control-stats-report." + std::to_string(::getpid());
  ::unlink(path.c_str());
  ::setenv("HIPFILE_STATS_FILE", path.c_str(), 1);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  REQUIRE(hipFileDriverClose().err == ok);
  ::unsetenv("HIPFILE_STATS_FILE");
  struct stat st{};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const std::string text = slurp(path);
  INFO(text);
  CHECK(text.find("path engine write ops 1 bytes 1048576 errors 0") != std::string::npos);
  CHECK(text.find("path engine read ops 2 bytes 1048576 errors 1") != std::string::npos);
  CHECK(text.find("path host read ops 1 bytes 4096 errors 0") != std::string::npos);
  // Buffered descriptors: every byte went through the page cache.
  CHECK(text.find("source engine read cache_bytes 1048576 direct_bytes 0\n") != std::string::npos);
  CHECK(text.find("source engine write cache_bytes 1048576 direct_bytes 0\n") != std::string::npos);
  CHECK(text.find("source host read cache_bytes 4096 direct_bytes 0\n") != std::string::npos);

  // On demand, to an explicit path; a symbolic link is never followed.
  const std::string link = path + ".link";
  ::unlink(link.c_str());
  REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
  CHECK(hipFileStatsWrite(link.c_str()).err == hipFileInvalidValue);
  ::unlink(link.c_str());
  ::unlink(path.c_str());
  CHECK(hipFileStatsWrite(path.c_str()).err == ok);
  CHECK(slurp(path).find("hipfile-stats " + std::to_string(HIPFILE_STATS_VERSION) + "\n") == 0);
  ::unlink(path.c_str());
}

#include <hipfile++/hipfile.hpp>

TEST_CASE("hipfile++ stats accessor", "[stats][cxx]") {
  Fresh fresh(3);
  REQUIRE(hipFileDriverOpen().err == ok);
  known_io();
  auto s = hipfile::stats::level1();
  REQUIRE(s.has_value());
  using hipfile::stats::Op;
  using hipfile::stats::Path;
  CHECK(hipfile::stats::at(*s, Path::engine, Op::write).bytes == 1u << 20);
  CHECK(hipfile::stats::at(*s, Path::host, Op::read).ops == 1);
  auto all = hipfile::stats::level3();
  REQUIRE(all.has_value());
  CHECK((*all)->device[0][hipFileStatsOpWrite].ops == 1);
  CHECK(hipfile::stats::level().value() == 3);
  CHECK(hipfile::stats::set_level(9).error().op() == hipFileInvalidValue);
  REQUIRE(hipfile::stats::reset().has_value());
  CHECK(hipfile::stats::at(*hipfile::stats::level1(), Path::engine, Op::write).ops == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}
