// SPDX-License-Identifier: MIT
// Cold buffered reads: when the first byte of a large read is not in the page cache, the engine
// asks the kernel for a window ahead of its workers (posix_fadvise WILLNEED). The bytes must be
// exactly the file's, at any offset, up to and past the end of the file.
#include "../c_api/helpers.hpp"

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
  if (!cold) WARN("the file system kept the pages; the read below is not a cold one");
  {
    Registered r(f.path(), O_RDONLY);
    check_padded_read(r.handle, file, c.offset, c.size);
  }
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_MAPPED_READS"}) ::unsetenv(v);
}
