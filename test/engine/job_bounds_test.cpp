// SPDX-License-Identifier: MIT
// A request may end at the largest file offset (LLONG_MAX): cutting it into ramp pieces and
// chunks must not form an offset past its end, where signed arithmetic overflows. The pieces
// still tile the request exactly, each ramp piece ending on a multiple of its size.
#include <climits>
#include <vector>

#include "../c_api/helpers.hpp"
#include "staging/job.hpp"

using hipfile::engine::Job;
using hipfile::engine::Request;

namespace {
constexpr off_t kKiB = 1024;
constexpr off_t kMiB = 1024 * kKiB;
constexpr off_t kMax = LLONG_MAX;

Request read_of(off_t offset, off_t size) {
  Request r;
  r.offset = offset;
  r.size = static_cast<std::size_t>(size);
  return r;
}

struct Piece {
  off_t a, b;
};

std::vector<Piece> claim_all(Job& job) {
  std::vector<Piece> out;
  for (off_t k; job.claim(k);) {
    auto [a, b] = job.range(k);
    out.push_back({a, b});
  }
  return out;
}
}  // namespace

TEST_CASE("A ramp ending at the largest file offset tiles the request without overflow", "[ramp][bounds]") {
  struct Case {
    off_t offset;
    off_t end;
    off_t chunk;
    off_t first;
    int per_round;
  };
  // Ends at LLONG_MAX (not a multiple of any piece size), inside the ramp or after it.
  const Case c = GENERATE(Case{kMax - 10 * kMiB, kMax, 4 * kMiB, 512 * kKiB, 2},
                          Case{kMax - 5 * kMiB, kMax, 4 * kMiB, 512 * kKiB, 4},
                          Case{kMax - 1700 * kKiB, kMax, 1 * kMiB, 64 * kKiB, 1},
                          Case{kMax - 9 * kMiB - 12345, kMax - 7, 4 * kMiB, 256 * kKiB, 3});
  CAPTURE(c.offset, c.end, c.chunk, c.first, c.per_round);
  Job job(read_of(c.offset, c.end - c.offset), c.chunk);
  REQUIRE(job.end == c.end);
  REQUIRE_FALSE(job.one_chunk);
  job.ramp_up(c.first, c.per_round);
  const off_t count = job.chunks();
  REQUIRE(count > 0);
  const std::vector<Piece> pieces = claim_all(job);
  REQUIRE(static_cast<off_t>(pieces.size()) == count);
  REQUIRE(pieces.front().a == c.offset);
  CHECK(pieces.front().b - pieces.front().a <= c.first);
  off_t at = c.offset;
  for (const Piece& p : pieces) {
    CAPTURE(p.a, p.b);
    REQUIRE(p.a == at);
    REQUIRE(p.b > p.a);
    REQUIRE(p.b <= c.end);
    CHECK(p.b - p.a <= c.chunk);
    if (p.b != c.end) CHECK(p.b % (64 * kKiB) == 0);  // interior ends stay aligned
    at = p.b;
  }
  CHECK(at == c.end);
  CHECK(job.claimed_end() == c.end);
  CHECK(job.moved_end() == c.end);
}

TEST_CASE("Chunks of a request ending at the largest file offset end there", "[bounds]") {
  Job job(read_of(kMax - 9 * kMiB - 1, 9 * kMiB + 1), 4 * kMiB);
  const std::vector<Piece> pieces = claim_all(job);
  // LLONG_MAX is one below a multiple of 4 MiB: the first piece runs to a boundary 1 MiB + 2
  // bytes on, then one whole chunk, then the last one byte short of a chunk.
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].b - pieces[0].a == kMiB + 2);
  CHECK(pieces[1].b - pieces[1].a == 4 * kMiB);
  CHECK(pieces.front().a == kMax - 9 * kMiB - 1);
  CHECK(pieces.back().b == kMax);
  for (std::size_t i = 1; i < pieces.size(); ++i) CHECK(pieces[i].a == pieces[i - 1].b);
}
