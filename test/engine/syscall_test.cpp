// SPDX-License-Identifier: MIT
// The system-call edge: EINTR, short counts and errors from pread/pwrite (which descriptor
// serves which range: page_cache_test.cpp).
#include <fcntl.h>

#include "../c_api/helpers.hpp"
#include "seam.hpp"

using namespace hipfile::test;

TEST_CASE("EINTR and short counts are retried until the whole request moved", "[syscall]") {
  ClosedDriver guard;
  const std::size_t n = (3u << 20) + 99;
  TempFile f(n, 61);
  Registered r(f.path(), O_RDWR);
  const bool device = GENERATE(true, false);
  CAPTURE(device);
  ScopedSyscalls sc;
  sc.script().max_chunk = 100000;
  sc.script().eintr_every_other = true;
  DeviceMem dmem(n);
  std::vector<std::byte> hmem(n);
  void* mem = device ? dmem.get() : static_cast<void*>(hmem.data());
  REQUIRE(hipFileRead(r.handle, mem, n, 0, 0) == static_cast<ssize_t>(n));
  CHECK((device ? to_host(mem, n) : hmem) == pattern(n, 61));
  const auto data = pattern(n, 62);
  if (device) to_device(mem, data); else std::copy(data.begin(), data.end(), hmem.begin());
  REQUIRE(hipFileWrite(r.handle, mem, n, 5, 0) == static_cast<ssize_t>(n));
  auto file = read_file(f.path());
  CHECK(std::vector<std::byte>(file.begin() + 5, file.end()) == pattern(n, 62));
  CHECK(sc.script().calls > 60);  // it really went through the short-count path
}

TEST_CASE("A failing pread or pwrite is reported as -1 with its errno", "[syscall]") {
  ClosedDriver guard;
  const std::size_t n = 16u << 20;
  TempFile f(n, 63);
  Registered r(f.path(), O_RDWR);
  DeviceMem mem(n);
  // The failing write may land some chunks before the error: make them the file's own bytes, so
  // the recovery read below can compare against the original pattern.
  to_device(mem.get(), pattern(n, 63));
  const int err = GENERATE(EIO, ENOSPC, EFBIG);
  CAPTURE(err);
  {
    // The first call fails: nothing moved, so the error is returned (progress_test.cpp covers
    // failures after progress, which return the prefix).
    ScopedSyscalls sc;
    sc.script().fail_errno = err;
    sc.script().fail_after = 0;
    errno = 0;
    CHECK(hipFileRead(r.handle, mem.get(), n, 0, 0) == -1);
    CHECK(errno == err);
    sc.script().calls = 0;
    to_device(mem.get(), pattern(n, 63));
    errno = 0;
    ssize_t w = hipFileWrite(r.handle, mem.get(), n, 0, 0);
    // Workers run chunks in parallel: the failing call may be a later chunk's, and a prefix
    // that moved before it is returned.
    if (w < 0) CHECK(errno == err);
    CHECK(w < static_cast<ssize_t>(n));
  }
  // The engine recovers: the next request works.
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 63));
}

TEST_CASE("A pwrite that makes no progress is an error, not a hang", "[syscall]") {
  ClosedDriver guard;
  TempFile f(4096, 64);
  Registered r(f.path(), O_RDWR);
  ScopedSyscalls sc;
  hipfile::sys::ops.pwrite = [](int, const void*, size_t, off_t) -> ssize_t { return 0; };
  std::vector<std::byte> host(4096);
  errno = 0;
  CHECK(hipFileWrite(r.handle, host.data(), host.size(), 0, 0) == -1);
  CHECK(errno == EIO);
}
