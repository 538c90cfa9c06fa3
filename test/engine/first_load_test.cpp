// SPDX-License-Identifier: MIT
// The first load in a process and a later one: on every read path, a fresh driver's first read
// (new engine, threads, lanes and tuner) and the read after it give the file's bytes and nothing
// outside the caller's range; the setup phases are counted once, at the first read, and the
// later read pays none of them.
#include <fcntl.h>

#include <string>
#include <vector>

#include <hipfile/hipfile_stats.h>

#include "../c_api/helpers.hpp"
#include "all_resident.hpp"
#include "seam.hpp"
#include "sys/page_cache.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;
using Adjust = void (*)(hipfile::engine::Config&);

enum class Mapped { yes, no, either };

struct Way {
  const char* name;
  Adjust adjust;
  bool direct;    // the client opens with O_DIRECT
  bool workers;   // the read runs on the worker pool (threads are started)
  Mapped mapped;  // page-cache pages are pinned
  bool every_worker;  // every worker takes part, so the first read makes every worker's lane
};

const Way kWays[] = {
    {"staged", [](hipfile::engine::Config& c) { c.mapped_reads = false; }, false, true, Mapped::no, true},
    {"mapped, stagers beside", [](hipfile::engine::Config& c) { c.map_alone = false, c.tune_read_path = false; },
     false, true, Mapped::yes, true},
    {"mapped alone", [](hipfile::engine::Config& c) { c.map_alone = true, c.tune_read_path = false; }, false, true,
     Mapped::yes, false},
    {"tuned (the defaults)", [](hipfile::engine::Config&) {}, false, true, Mapped::either, true},
    {"O_DIRECT client", [](hipfile::engine::Config&) {}, true, true, Mapped::either, true},
    {"inline on the caller's thread", [](hipfile::engine::Config& c) { c.inline_threshold = 1ull << 30; }, false,
     false, Mapped::no, true},
    {"no worker pool", [](hipfile::engine::Config& c) { c.parallel_io = false; }, false, false, Mapped::no, true},
};

std::vector<hipFileStatsPhaseTime_t> phases() {
  std::vector<hipFileStatsPhaseTime_t> p(hipFileStatsPhaseCount);
  REQUIRE(hipFileGetStatsPhases(p.data(), p.size()).err == hipFileSuccess);
  return p;
}

std::uint64_t calls(const std::vector<hipFileStatsPhaseTime_t>& after, const std::vector<hipFileStatsPhaseTime_t>& before,
                    hipFileStatsPhase_t phase) {
  return after[phase].count - before[phase].count;
}

// Reads [off, off + len) into the middle of a canary-filled allocation: the bytes read back, the
// canaries around them included.
std::vector<std::byte> read_padded(hipFileHandle_t h, std::size_t len, off_t off) {
  const std::size_t pad = 8192;
  DeviceMem mem(len + 2 * pad);
  fill_device(mem.get(), 0x5c, mem.size());
  REQUIRE(hipFileRead(h, mem.bytes() + pad, len, off, 0) == static_cast<ssize_t>(len));
  return to_host(mem.get(), mem.size());
}

}  // namespace

TEST_CASE("a first and a later read give the same bytes on every read path; the later pays no setup") {
  const std::size_t n = 40 * kMiB + 4096 * 3;
  const off_t off = 4096;  // aligned, so the O_DIRECT client's read may go to the disk
  const std::size_t len = n - 2 * 4096;
  TempFile f(n, 41);
  std::vector<std::byte> expect(len + 2 * 8192, std::byte{0x5c});
  const auto file = pattern(len, 41, static_cast<std::uint64_t>(off));
  std::copy(file.begin(), file.end(), expect.begin() + 8192);
  for (const Way& way : kWays) {
    CAPTURE(way.name);
    ScopedEnv env{{"HIPFILE_THREADS", "3"}};
    ScopedConfig shape(way.adjust);
    ClosedDriver fresh;
    AllResident cached;
    hipfile::sys::ask_mincore_only(true);
    {
      Registered r(f.path(), way.direct ? O_RDONLY | O_DIRECT : O_RDONLY);
      const auto before = phases();
      const auto first = read_padded(r.handle, len, off);
      const auto after_first = phases();
      const auto later = read_padded(r.handle, len, off);
      const auto after_later = phases();
      CHECK(first == expect);
      CHECK(later == first);
      CHECK(calls(after_first, before, hipFileStatsPhaseEngineStart) == 1);
      CHECK(calls(after_first, before, hipFileStatsPhaseThreadStart) == (way.workers ? 1u : 0u));
      CHECK(calls(after_first, before, hipFileStatsPhasePinnedStaging) >= 1);  // a lane, the caller's or workers'
      if (way.mapped != Mapped::either)
        CHECK((calls(after_first, before, hipFileStatsPhaseMapping) > 0) == (way.mapped == Mapped::yes));
      for (auto p : {hipFileStatsPhaseDriverOpen, hipFileStatsPhaseEngineStart, hipFileStatsPhaseThreadStart,
                     hipFileStatsPhaseFileRegistration})
        CHECK(calls(after_later, after_first, p) == 0);
      // A worker makes its lane at its first part in a job: one that sat out the first read may
      // make it in the later one.
      if (way.every_worker) CHECK(calls(after_later, after_first, hipFileStatsPhasePinnedStaging) == 0);
    }
    hipfile::sys::ask_mincore_only(false);
  }
}

TEST_CASE("the first read of a fresh driver is no read-path trial") {
  const std::size_t n = 40 * kMiB + 4097;
  TempFile f(n, 43);
  ScopedEnv env{{"HIPFILE_THREADS", "3"}};
  ClosedDriver fresh;
  AllResident cached;
  hipfile::sys::ask_mincore_only(true);
  {
    Registered r(f.path(), O_RDONLY);
    const auto before = phases();
    (void)read_padded(r.handle, n, 0);
    CHECK(calls(phases(), before, hipFileStatsPhasePathTrials) == 0);
  }
  hipfile::sys::ask_mincore_only(false);
}

TEST_CASE("hipFileGetStatsPhases: bad arguments, a longer array, names, reset") {
  hipFileStatsPhaseTime_t one{};
  CHECK(hipFileGetStatsPhases(nullptr, 4).err == hipFileInvalidValue);
  CHECK(hipFileGetStatsPhases(&one, 0).err == hipFileInvalidValue);
  std::vector<hipFileStatsPhaseTime_t> more(hipFileStatsPhaseCount + 3, hipFileStatsPhaseTime_t{7, 7, 7});
  REQUIRE(hipFileGetStatsPhases(more.data(), more.size()).err == hipFileSuccess);
  for (std::size_t i = hipFileStatsPhaseCount; i < more.size(); ++i) {
    CHECK(more[i].count == 0);
    CHECK(more[i].time_ns == 0);
    CHECK(more[i].first_ns == 0);
  }
  CHECK(std::string(hipFileGetStatsPhaseName(hipFileStatsPhaseDriverOpen)) == "driver_open");
  CHECK(std::string(hipFileGetStatsPhaseName(hipFileStatsPhaseTeardown)) == "teardown");
  CHECK(std::string(hipFileGetStatsPhaseName(-1)) == "unknown");
  CHECK(std::string(hipFileGetStatsPhaseName(hipFileStatsPhaseCount)) == "unknown");
  {
    ClosedDriver fresh;
    REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
    REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  }
  auto p = phases();
  CHECK(p[hipFileStatsPhaseDriverOpen].count >= 1);
  CHECK(p[hipFileStatsPhaseTeardown].count >= 1);
  CHECK(p[hipFileStatsPhaseDriverOpen].first_ns <= p[hipFileStatsPhaseDriverOpen].time_ns);
  REQUIRE(hipFileStatsReset().err == hipFileSuccess);
  p = phases();
  for (const auto& t : p) CHECK((t.count == 0 && t.time_ns == 0 && t.first_ns == 0));
}
