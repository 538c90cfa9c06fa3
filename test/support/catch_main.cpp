// SPDX-License-Identifier: MIT
// The Catch2 main of every suite. A test program that needs a device exits 77 (Meson: SKIP)
// where the HIP runtime has none, so GPU builds on machines without a GPU report SKIP, not FAIL.
#if defined(HIPFILE_CATCH2_V3)  // Catch2 v3 (test/meson.build decides)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#include "test_support.hpp"

int main(int argc, char** argv) {
  if (!hipfile::test::have_device()) {
    std::puts("SKIP: the HIP runtime reports no device");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
