// SPDX-License-Identifier: MIT
// HIPFILE_SKIP(reason): the case cannot check anything here (one device, no O_DIRECT, a file
// system that keeps its pages, not root), so it must not count as passed. Catch2 v3.3 and later
// have SKIP; Catch2 v2 does not, so there the reason is recorded and the case returns. Either
// way the Catch2 main (catch_main.cpp) prints each reason as a "SKIP:" line and exits 77 (Meson:
// SKIP) when nothing failed but a case skipped.
//
// The v2 form returns from the enclosing function, so use it in the TEST_CASE body (or in a
// function whose caller returns right after); a helper that finds the condition missing returns
// a value that says so and the case skips.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace hipfile::test {

/// Records that the running case skipped and why (thread-safe).
void record_skip(const std::string& reason);
/// Every recorded skip as "<case>: <reason>", in the order they happened.
std::vector<std::string> recorded_skips();

}  // namespace hipfile::test

#if defined(HIPFILE_CATCH2_V3) && (CATCH_VERSION_MAJOR > 3 || CATCH_VERSION_MINOR >= 3)
#define HIPFILE_SKIP_END(text) SKIP(text)
#else
#define HIPFILE_SKIP_END(text) return
#endif

#define HIPFILE_SKIP(reason)                                     \
  do {                                                           \
    std::ostringstream hipfile_skip_text;                        \
    hipfile_skip_text << reason;                                 \
    ::hipfile::test::record_skip(hipfile_skip_text.str());       \
    HIPFILE_SKIP_END(hipfile_skip_text.str());                   \
  } while (false)
