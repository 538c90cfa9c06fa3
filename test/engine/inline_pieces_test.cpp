// SPDX-License-Identifier: MIT
// Reads run on the caller's thread into device memory are cut into pieces (quarters, none
// below 128 KiB) so that each piece's read overlaps the copy of the one before: the bytes are
// the file's at any size and offset, buffered or from an O_DIRECT client fd, nothing outside the
// caller's range is written, and a failure after some pieces returns the pieces before it.
#include <fcntl.h>

#include <cerrno>

#include "../c_api/helpers.hpp"
#include "seam.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kKiB = 1024;

}  // namespace

TEST_CASE("Inline device reads in pieces return the file's bytes at any size and offset", "[inline][environment]") {
  ClosedDriver guard;
  const std::size_t n = 3u << 20;
  TempFile f(n, 17);
  const auto file = pattern(n, 17);
  const bool direct = GENERATE(false, true);
  if (direct && !supports_odirect(f.path()))
    HIPFILE_SKIP("no O_DIRECT in " << test_dir() << ": only the buffered half ran");
  CAPTURE(direct);
  Registered r(f.path(), O_RDONLY | (direct ? O_DIRECT : 0));
  for (std::size_t size : {128 * kKiB + 1, 300 * kKiB + 7, 512 * kKiB, 1024 * kKiB - 3, 1024 * kKiB})
    for (off_t offset : {off_t{0}, off_t{3 * 4096 + 5}, off_t{128 * 1024 - 1}, off_t{n - 700 * 1024}}) {
      CAPTURE(size, offset);
      check_padded_read(r.handle, file, offset, size);
    }
}

TEST_CASE("A 1 MiB inline read is four preads of 256 KiB; 128 KiB stays one", "[inline]") {
  ClosedDriver guard;
  const std::size_t n = 2u << 20;
  TempFile f(n, 18);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  struct Case {
    std::size_t size;
    int preads;
  };
  for (Case c : {Case{1024 * kKiB, 4}, Case{512 * kKiB, 4}, Case{256 * kKiB, 2}, Case{128 * kKiB, 1}}) {
    CAPTURE(c.size);
    ScopedSyscalls sc;
    REQUIRE(hipFileRead(r.handle, mem.get(), c.size, 0, 0) == static_cast<ssize_t>(c.size));
    CHECK(sc.script().calls == c.preads);
    CHECK(to_host(mem.get(), c.size) == pattern(c.size, 18));
  }
}

TEST_CASE("An inline read failing in its third piece returns the two pieces before it", "[inline]") {
  ClosedDriver guard;
  const std::size_t n = 1u << 20, piece = 256 * kKiB, pad = 4096;
  TempFile f(n, 19);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n + 2 * pad);
  fill_device(mem.get(), 0x5a, mem.size());
  ScopedSyscalls sc;
  sc.script().fail_after = 2;
  sc.script().fail_errno = EIO;
  REQUIRE(hipFileRead(r.handle, mem.bytes() + pad, n, 0, 0) == static_cast<ssize_t>(2 * piece));
  auto all = to_host(mem.get(), mem.size());
  std::vector<std::byte> expect(mem.size(), std::byte{0x5a});
  const auto moved = pattern(2 * piece, 19);
  std::copy(moved.begin(), moved.end(), expect.begin() + pad);
  // The failed piece and the one after it are not written: the caller sees only the prefix.
  CHECK(all == expect);
  // What the short count invites, a retry of the rest, gets the error: nothing moved there.
  errno = 0;
  CHECK(hipFileRead(r.handle, mem.bytes() + pad + 2 * piece, n - 2 * piece, 2 * piece, 0) == -1);
  CHECK(errno == EIO);
}
