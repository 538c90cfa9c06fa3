// SPDX-License-Identifier: MIT
// The Catch2 main of every suite. A test program that needs a device exits 77 (Meson: SKIP)
// where the HIP runtime has none, so GPU builds on machines without a GPU report SKIP, not FAIL.
// A program whose cases passed but one of them skipped (HIPFILE_SKIP) exits 77 as well, after a
// "SKIP: <case>: <reason>" line per skip: a case that checked nothing must not count as passed.
#if defined(HIPFILE_CATCH2_V3)  // Catch2 v3 (test/meson.build decides)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#include "skip.hpp"
#include "test_support.hpp"

namespace {
// Catch2 v3.3 returns 4 when every case it ran skipped; nothing failed then either.
constexpr int kAllSkipped = 4;
constexpr int kMesonSkip = 77;
}  // namespace

int main(int argc, char** argv) {
  if (!hipfile::test::have_device()) {
    std::puts("SKIP: the HIP runtime reports no device");
    return kMesonSkip;
  }
  const int result = Catch::Session().run(argc, argv);
  const auto skips = hipfile::test::recorded_skips();
  if (skips.empty() || (result != 0 && result != kAllSkipped)) return result;
  for (const auto& s : skips) std::printf("SKIP: %s\n", s.c_str());
  return kMesonSkip;
}
