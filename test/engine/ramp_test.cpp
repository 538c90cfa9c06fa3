// SPDX-License-Identifier: MIT
// The ramp (Config::first_chunk): a staged read starts with small pieces that double up to the
// chunk size. The pieces must tile the request exactly, stay within a slot, keep O_DIRECT
// alignment, and the read must return the file's bytes at any offset, hot or cold, buffered or
// O_DIRECT, up to and past the end of the file.
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "../c_api/helpers.hpp"
#include "io/config.hpp"
#include "staging/job.hpp"

using namespace hipfile::test;
using hipfile::engine::Job;
using hipfile::engine::Request;

namespace {
constexpr off_t kKiB = 1024;
constexpr off_t kMiB = 1024 * kKiB;

struct Piece {
  off_t a, b;
};

// Every piece of the job, in claim order, with claimed_end checked before each claim.
std::vector<Piece> claim_all(Job& job) {
  std::vector<Piece> out;
  off_t k;
  for (;;) {
    const off_t before = job.claimed_end();
    if (!job.claim(k)) break;
    auto [a, b] = job.range(k);
    CHECK(before == a);  // untouched from the next piece's start on
    out.push_back({a, b});
  }
  CHECK(job.claimed_end() == job.end);
  return out;
}

Request read_of(off_t offset, std::size_t size) {
  Request r;
  r.offset = offset;
  r.size = size;
  return r;
}
}  // namespace

TEST_CASE("Ramp pieces tile the request, double up to the chunk and keep alignment", "[ramp]") {
  struct Case {
    off_t offset;
    off_t size;
    off_t chunk;
    off_t first;
    int per_round;
  };
  const Case c = GENERATE(Case{0, 64 * kMiB, 4 * kMiB, 512 * kKiB, 4}, Case{4097, 64 * kMiB + 3, 4 * kMiB, 512 * kKiB, 4},
                          Case{3 * kMiB + 12345, 9 * kMiB, 4 * kMiB, 256 * kKiB, 16},
                          Case{0, 2 * kMiB + 5, 1 * kMiB, 64 * kKiB, 3},  // ends inside the ramp
                          Case{7 * kMiB, 40 * kMiB, 4 * kMiB, 1 * kMiB, 1},
                          Case{(off_t{1} << 40) - 8 * kMiB, 8 * kMiB, 4 * kMiB, 512 * kKiB, 2});
  CAPTURE(c.offset, c.size, c.chunk, c.first, c.per_round);
  Job job(read_of(c.offset, static_cast<std::size_t>(c.size)), c.chunk);
  REQUIRE_FALSE(job.one_chunk);
  job.ramp_up(c.first, c.per_round);
  const off_t count = job.chunks();
  const std::vector<Piece> pieces = claim_all(job);
  REQUIRE(static_cast<off_t>(pieces.size()) == count);
  off_t at = c.offset;
  off_t size = c.first;
  int in_round = 0;
  bool uniform = false;
  for (const Piece& p : pieces) {
    CAPTURE(p.a, p.b);
    REQUIRE(p.a == at);
    REQUIRE(p.b > p.a);
    CHECK(p.b - p.a <= c.chunk);
    if (p.b != c.offset + c.size) CHECK(p.b % (64 * kKiB) == 0);  // interior ends stay aligned
    if (!uniform && size < c.chunk) {
      // A ramp piece ends on a multiple of its size, or is the piece up to the first chunk boundary.
      const bool ramp_end = p.b % size == 0 && p.b - p.a <= size;
      const bool to_boundary = p.b % c.chunk == 0 || p.b == c.offset + c.size;
      CHECK((ramp_end || to_boundary));
      if (++in_round == c.per_round) {
        in_round = 0;
        size *= 2;
      }
      if (size >= c.chunk && p.b % c.chunk == 0) uniform = true;
    }
    if (uniform) CHECK((p.b % c.chunk == 0 || p.b == c.offset + c.size));
    at = p.b;
  }
  CHECK(at == c.offset + c.size);
  // The first pieces are the small ones.
  CHECK(pieces.front().b - pieces.front().a <= c.first);
}

TEST_CASE("Without a ramp, or for one chunk, the job is cut as before", "[ramp]") {
  Job plain(read_of(4097, 10 * kMiB), 4 * kMiB);
  Job same(read_of(4097, 10 * kMiB), 4 * kMiB);
  same.ramp_up(8 * kMiB, 4);  // not below the chunk: nothing changes
  CHECK(plain.chunks() == 3);
  CHECK(same.chunks() == 3);
  const auto p = claim_all(plain);
  const auto s = claim_all(same);
  REQUIRE(p.size() == s.size());
  for (std::size_t i = 0; i < p.size(); ++i) CHECK((p[i].a == s[i].a && p[i].b == s[i].b));
  Job one(read_of(0, 1 * kMiB), 4 * kMiB);
  one.ramp_up(64 * kKiB, 4);
  CHECK(one.chunks() == 1);
  CHECK(claim_all(one).size() == 1);
}

TEST_CASE("Reads with a ramp return the file's bytes and nothing outside the range", "[ramp]") {
  ClosedDriver guard;
  ::setenv("HIPFILE_THREADS", "4", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "1M", 1);
  // The first piece is a fixed choice, not a variable: shaped through the config seam.
  hipfile::engine::Config::adjust_for_test([](hipfile::engine::Config& c) { c.first_chunk = 64 * kKiB; });
  ::setenv("HIPFILE_MAPPED_READS", "0", 1);
  const std::size_t n = 24 * kMiB + 1234;
  TempFile f(n, 47);
  const auto file = read_file(f.path());
  struct Case {
    off_t offset;
    std::size_t size;
    bool direct;
    bool cold;
  };
  const Case c = GENERATE(Case{0, 16 * kMiB, false, false}, Case{4097, 8 * kMiB + 3, false, false},
                          Case{0, 16 * kMiB, true, false}, Case{8192, 12 * kMiB, true, true},
                          Case{4096, 6 * kMiB, false, true},
                          Case{static_cast<off_t>(n - 3 * kMiB), 8 * kMiB, false, false},  // past the end
                          Case{static_cast<off_t>(n - 3 * kMiB - 1234), 8 * kMiB, true, false});
  CAPTURE(c.offset, c.size, c.direct, c.cold);
  const bool has_direct = supports_odirect(f.path());
  // Without O_DIRECT or eviction the read is a buffered or warm one, still checked byte for byte
  // below: notes, not skips.
  if (c.direct && !has_direct) WARN("no O_DIRECT on the test directory's file system: the case reads buffered");
  if (c.cold && !make_cold(f.path())) WARN("the file system kept the pages; the read below is not a cold one");
  {
    Registered r(f.path(), O_RDONLY | (c.direct && has_direct ? O_DIRECT : 0));
    check_padded_read(r.handle, file, c.offset, c.size);
  }
  hipfile::engine::Config::adjust_for_test(nullptr);
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_MAPPED_READS"}) ::unsetenv(v);
}
