// SPDX-License-Identifier: MIT
// The read-path tuner on its own: the order it explores in, when it measures a slower path
// again, how it follows a machine whose rates change, and what it ignores.
#include "../c_api/helpers.hpp"

#include <map>
#include <thread>
#include <vector>

#include "staging/path_tuner.hpp"

using hipfile::engine::PathTuner;
using hipfile::engine::ReadPath;

namespace {
constexpr ReadPath kAll[] = {ReadPath::mapped_shared, ReadPath::mapped_alone, ReadPath::staged};

// One read on the path the tuner chose, on a machine where each path moves `gbps` GB/s.
ReadPath read_once(PathTuner& t, const std::map<ReadPath, double>& gbps, bool* changed = nullptr) {
  const ReadPath p = t.choose();
  const std::int64_t ns = 100'000'000;  // bytes / ns is GB/s exactly for whole GB/s
  const bool c = t.record(p, static_cast<std::size_t>(gbps.at(p) * 1e8), ns);
  if (changed) *changed = c;
  return p;
}
}  // namespace

TEST_CASE("A tuner without a choice stages or keeps its one path", "[tuner]") {
  PathTuner none;
  CHECK_FALSE(none.tuning());
  CHECK(none.choose() == ReadPath::staged);
  CHECK_FALSE(none.record(ReadPath::staged, 1 << 20, 1000));
  CHECK(none.rate(ReadPath::staged) == 0);

  PathTuner one;
  const ReadPath twice[] = {ReadPath::mapped_alone, ReadPath::mapped_alone};
  one.set_candidates(twice, 2);  // repeats collapse
  CHECK_FALSE(one.tuning());
  CHECK(one.choose() == ReadPath::mapped_alone);
}

TEST_CASE("Each path is tried once in the order given, then the fastest is read", "[tuner]") {
  PathTuner t;
  t.set_candidates(kAll, 3);
  REQUIRE(t.tuning());
  const std::map<ReadPath, double> gbps{
      {ReadPath::mapped_shared, 10}, {ReadPath::mapped_alone, 20}, {ReadPath::staged, 5}};
  // A choice never measured (its read did not count) is offered again.
  CHECK(t.choose() == ReadPath::mapped_shared);
  CHECK(t.choose() == ReadPath::mapped_shared);
  std::vector<ReadPath> seen;
  for (int i = 0; i < 3; ++i) seen.push_back(read_once(t, gbps));
  CHECK(seen == std::vector<ReadPath>{ReadPath::mapped_shared, ReadPath::mapped_alone, ReadPath::staged});
  CHECK(t.rate(ReadPath::mapped_shared) == 10.0);
  CHECK(t.rate(ReadPath::mapped_alone) == 20.0);
  CHECK(t.rate(ReadPath::staged) == 5.0);
  // Choices so far: 5. The slower two are measured again 8 choices after they were last (the
  // mapped read beside stagers: when the mapped read alone overtook it, choice 4), then at gaps
  // of 16, 32, … up to 256; every other read takes the fastest.
  std::map<ReadPath, std::vector<int>> probes;
  for (int choice = 6; choice <= 1200; ++choice) {
    const ReadPath p = read_once(t, gbps);
    if (p != ReadPath::mapped_alone) probes[p].push_back(choice);
  }
  CHECK(probes[ReadPath::mapped_shared] == std::vector<int>{12, 28, 60, 124, 252, 508, 764, 1020});
  CHECK(probes[ReadPath::staged] == std::vector<int>{13, 29, 61, 125, 253, 509, 765, 1021});
}

TEST_CASE("When the fastest path slows down the tuner moves to the next within two reads", "[tuner]") {
  PathTuner t;
  t.set_candidates(kAll, 3);
  std::map<ReadPath, double> gbps{{ReadPath::mapped_shared, 10}, {ReadPath::mapped_alone, 20}, {ReadPath::staged, 5}};
  for (int i = 0; i < 3; ++i) read_once(t, gbps);
  CHECK(t.choose() == ReadPath::mapped_alone);
  // The page cache was refilled another way: pinning got slow, the mapped paths with it.
  gbps = {{ReadPath::mapped_shared, 4}, {ReadPath::mapped_alone, 2}, {ReadPath::staged, 5}};
  bool changed = false;
  CHECK(read_once(t, gbps, &changed) == ReadPath::mapped_alone);  // (20 + 2) / 2 = 11: still ahead
  CHECK_FALSE(changed);
  CHECK(read_once(t, gbps, &changed) == ReadPath::mapped_alone);  // (11 + 2) / 2 = 6.5 < 10
  CHECK(changed);
  // The others lead on their old rates until measured again; within a few reads staged leads.
  int reads = 0;
  while (read_once(t, gbps) != ReadPath::staged && reads < 20) ++reads;
  CHECK(reads <= 5);
  for (int i = 0; i < 5; ++i) CHECK(read_once(t, gbps) == ReadPath::staged);
}

TEST_CASE("The tuner ignores empty and impossible measurements and paths it does not have", "[tuner]") {
  PathTuner t;
  const ReadPath two[] = {ReadPath::mapped_shared, ReadPath::staged};
  t.set_candidates(two, 2);
  CHECK_FALSE(t.record(ReadPath::mapped_alone, 1 << 30, 1000));
  CHECK_FALSE(t.record(ReadPath::mapped_shared, 0, 1000));
  CHECK_FALSE(t.record(ReadPath::mapped_shared, 1 << 30, 0));
  CHECK_FALSE(t.record(ReadPath::mapped_shared, 1 << 30, -5));
  CHECK(t.rate(ReadPath::mapped_alone) == 0);
  CHECK(t.rate(ReadPath::mapped_shared) == 0);
  CHECK(t.choose() == ReadPath::mapped_shared);  // still unmeasured
}

TEST_CASE("Callers choosing and recording at once leave the tuner consistent", "[tuner]") {
  PathTuner t;
  t.set_candidates(kAll, 3);
  const std::map<ReadPath, double> gbps{{ReadPath::mapped_shared, 3}, {ReadPath::mapped_alone, 2}, {ReadPath::staged, 9}};
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i)
    callers.emplace_back([&] {
      for (int k = 0; k < 2000; ++k) read_once(t, gbps);
    });
  for (auto& c : callers) c.join();
  CHECK(t.rate(ReadPath::staged) == 9.0);
  CHECK(t.rate(ReadPath::mapped_shared) == 3.0);
  CHECK(t.rate(ReadPath::mapped_alone) == 2.0);
  int staged = 0;
  for (int k = 0; k < 100; ++k) staged += read_once(t, gbps) == ReadPath::staged;
  CHECK(staged >= 98);
}
