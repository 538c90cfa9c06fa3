// SPDX-License-Identifier: MIT
// Failures keep their progress (POSIX's convention): a request that moved a contiguous prefix
// before a system call failed returns that prefix as a short count; only one that moved nothing
// returns the error. A write stops issuing chunks once a failure is known. Failures are injected
// through the syscall seam; guard bytes around the caller's range must stay intact.
#include <fcntl.h>

#include <cstdlib>

#include "../c_api/helpers.hpp"
#include "seam.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kChunk = 64u << 10;
constexpr std::size_t kPad = 4096;

// Caller memory with guard bytes on both sides: device or host.
struct Guarded {
  bool device;
  std::size_t n;
  DeviceMem dmem;
  std::vector<std::byte> hmem;
  Guarded(bool dev, std::size_t size)
      : device(dev), n(size), dmem(dev ? size + 2 * kPad : 1), hmem(dev ? 0 : size + 2 * kPad) {
    std::vector<std::byte> fill(n + 2 * kPad, std::byte{0xa5});
    if (device) to_device(dmem.get(), fill); else hmem = fill;
  }
  std::byte* data() { return (device ? dmem.bytes() : hmem.data()) + kPad; }
  std::vector<std::byte> all() { return device ? to_host(dmem.get(), n + 2 * kPad) : hmem; }
  void set(std::span<const std::byte> bytes) {
    if (device) to_device(data(), bytes); else std::copy(bytes.begin(), bytes.end(), data());
  }
};

bool guards_intact(const std::vector<std::byte>& all, std::size_t n) {
  for (std::size_t i = 0; i < kPad; ++i)
    if (all[i] != std::byte{0xa5} || all[kPad + n + i] != std::byte{0xa5}) return false;
  return true;
}

}  // namespace

TEST_CASE("A read that fails part-way returns the prefix it moved", "[progress]") {
  const bool device = GENERATE(true, false);
  CAPTURE(device);
  // One thread, 64 KiB chunks, in order: the 4th pread fails, so exactly three chunks moved.
  ScopedEnv env{{"HIPFILE_PARALLEL_IO", "false"}, {"HIPFILE_CHUNK_SIZE", "64k"}};
  ClosedDriver guard;
  const std::size_t n = 16 * kChunk;
  TempFile f(n, 81);
  Registered r(f.path(), O_RDWR);
  Guarded mem(device, n);
  ScopedSyscalls sc;
  sc.script().fail_after = 3;
  sc.script().fail_errno = EIO;
  errno = 0;
  REQUIRE(hipFileRead(r.handle, mem.data(), n, 0, 0) == static_cast<ssize_t>(3 * kChunk));
  auto all = mem.all();
  CHECK(guards_intact(all, n));
  CHECK(std::vector<std::byte>(all.begin() + kPad, all.begin() + kPad + 3 * kChunk) == pattern(3 * kChunk, 81));
  // The retry the short count invites gets the error: nothing moved there.
  errno = 0;
  CHECK(hipFileRead(r.handle, mem.data() + 3 * kChunk, n - 3 * kChunk, 3 * kChunk, 0) == -1);
  CHECK(errno == EIO);
}

TEST_CASE("A write that fails part-way returns the prefix and writes nothing past the failure", "[progress]") {
  const bool device = GENERATE(true, false);
  CAPTURE(device);
  ScopedEnv env{{"HIPFILE_PARALLEL_IO", "false"}, {"HIPFILE_CHUNK_SIZE", "64k"}};
  ClosedDriver guard;
  // Disk full at the 40th of 64 chunks.
  const std::size_t n = 64 * kChunk;
  TempFile f(n, 82);
  Registered r(f.path(), O_RDWR);
  Guarded mem(device, n);
  mem.set(pattern(n, 83));
  ScopedSyscalls sc;
  sc.script().fail_after = 39;
  sc.script().fail_errno = ENOSPC;
  REQUIRE(hipFileWrite(r.handle, mem.data(), n, 0, 0) == static_cast<ssize_t>(39 * kChunk));
  CHECK(guards_intact(mem.all(), n));
  auto file = read_file(f.path());
  REQUIRE(file.size() == n);
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + 39 * kChunk) == pattern(39 * kChunk, 83));
  // In one thread no chunk after the failing one was issued: the rest is the file's own bytes.
  CHECK(std::vector<std::byte>(file.begin() + 39 * kChunk, file.end()) == pattern(25 * kChunk, 82, 39 * kChunk));
  errno = 0;
  CHECK(hipFileWrite(r.handle, mem.data(), kChunk, 0, 0) == -1);  // the first call fails: nothing moved
  CHECK(errno == ENOSPC);
}

TEST_CASE("A write whose first pwrite is short and the next fails returns what reached the file", "[progress]") {
  const bool device = GENERATE(true, false);
  CAPTURE(device);
  ScopedEnv env{{"HIPFILE_PARALLEL_IO", "false"}};
  ClosedDriver guard;
  // Disk full part-way through the first pwrite: it writes 1000 bytes, the retry of the rest
  // fails with ENOSPC. The 1000 bytes are in the file, so they are the result, not -1.
  const std::size_t n = 8192;
  TempFile f(n, 86);
  Registered r(f.path(), O_RDWR);
  Guarded mem(device, n);
  mem.set(pattern(n, 87));
  ScopedSyscalls sc;
  sc.script().max_chunk = 1000;
  sc.script().fail_after = 1;
  sc.script().fail_errno = ENOSPC;
  REQUIRE(hipFileWrite(r.handle, mem.data(), n, 0, 0) == 1000);
  CHECK(guards_intact(mem.all(), n));
  auto file = read_file(f.path());
  REQUIRE(file.size() == n);
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + 1000) == pattern(1000, 87));
  CHECK(std::vector<std::byte>(file.begin() + 1000, file.end()) == pattern(n - 1000, 86, 1000));
  // The retry at the end of the prefix moves nothing: it gets the error.
  errno = 0;
  CHECK(hipFileWrite(r.handle, mem.data() + 1000, n - 1000, 1000, 0) == -1);
  CHECK(errno == ENOSPC);
}

TEST_CASE("With workers, a failure returns a chunk-aligned prefix that really moved", "[progress]") {
  ScopedEnv env{{"HIPFILE_CHUNK_SIZE", "64k"}, {"HIPFILE_INLINE_THRESHOLD", "0"}, {"HIPFILE_THREADS", "4"}};
  ClosedDriver guard;
  const std::size_t n = 64 * kChunk;
  TempFile f(n, 84);
  Registered r(f.path(), O_RDWR);
  const bool write = GENERATE(false, true);
  const int after = GENERATE(0, 5, 30);
  CAPTURE(write, after);
  Guarded mem(true, n);
  if (write) mem.set(pattern(n, 85));
  ssize_t got;
  {
    ScopedSyscalls sc;
    sc.script().fail_after = after;
    sc.script().fail_errno = EIO;
    errno = 0;
    got = write ? hipFileWrite(r.handle, mem.data(), n, 0, 0) : hipFileRead(r.handle, mem.data(), n, 0, 0);
  }
  auto all = mem.all();
  CHECK(guards_intact(all, n));
  if (got == -1) {
    CHECK(errno == EIO);
    return;
  }
  REQUIRE(got > 0);
  REQUIRE(got < static_cast<ssize_t>(n));
  CHECK(got % static_cast<ssize_t>(kChunk) == 0);
  const auto m = static_cast<std::size_t>(got);
  if (write) {
    auto file = read_file(f.path());
    CHECK(std::vector<std::byte>(file.begin(), file.begin() + static_cast<off_t>(m)) == pattern(m, 85));
  } else {
    CHECK(std::vector<std::byte>(all.begin() + kPad, all.begin() + kPad + static_cast<off_t>(m)) == pattern(m, 84));
  }
}
