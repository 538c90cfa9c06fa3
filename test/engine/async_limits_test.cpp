// SPDX-License-Identifier: MIT
// Async and batch at their limits, through the internals: a stream held by a slow pread, batch
// timeouts too long for the clock, and progress kept through async and batch results. A slow
// pread (the syscall seam) keeps an operation running long enough for an early return to show.
#include <fcntl.h>
#include <time.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <thread>

#include "../c_api/helpers.hpp"
#include "seam.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kSize = 64u << 10;

ssize_t slow_pread(int fd, void* buf, size_t count, off_t offset) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return ::pread(fd, buf, count, offset);
}

}  // namespace

TEST_CASE("A stream does not pass an async read before its slow pread is done", "[async]") {
  ClosedDriver guard;
  TempFile f(kSize, 31);
  Registered r(f.path(), O_RDONLY);
  DeviceMem dev(kSize);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  std::size_t size = kSize;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = 0;
  REQUIRE(hipFileReadAsync(r.handle, dev.get(), &size, &foff, &boff, &bytes, s).err == hipFileSuccess);
  HIP_CHECK(hipStreamSynchronize(s));  // the staging exists now
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    fill_device(dev.get(), 0, kSize);
    bytes = -77;
    {
      ScopedSyscalls sc;
      hipfile::sys::ops.pread = slow_pread;
      REQUIRE(hipFileReadAsync(r.handle, dev.get(), &size, &foff, &boff, &bytes, s).err == hipFileSuccess);
      HIP_CHECK(hipStreamSynchronize(s));  // must not return before the I/O is done
      CHECK(bytes == static_cast<ssize_t>(kSize));
    }
    CHECK(to_host(dev.get(), kSize) == pattern(kSize, 31));
  }
  HIP_CHECK(hipStreamDestroy(s));
}

TEST_CASE("A batch timeout too long for the clock waits instead of expiring at once", "[batch]") {
  ClosedDriver guard;
  TempFile f(kSize, 32);
  Registered r(f.path(), O_RDONLY);
  DeviceMem dev(kSize);
  ScopedSyscalls sc;
  hipfile::sys::ops.pread = slow_pread;
  hipFileBatchHandle_t b = nullptr;
  REQUIRE(hipFileBatchIOSetUp(&b, 1).err == hipFileSuccess);
  hipFileIOParams_t io{};
  io.mode = hipFileBatch;
  io.opcode = hipFileBatchRead;
  io.fh = r.handle;
  io.u.batch.devPtr_base = dev.get();
  io.u.batch.size = kSize;
  REQUIRE(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileSuccess);
  const time_t secs = GENERATE(time_t{10000000000}, time_t{LLONG_MAX});
  CAPTURE(secs);
  timespec forever{secs, 999999999};
  hipFileIOEvents_t ev{};
  unsigned nr = 1;
  REQUIRE(hipFileBatchIOGetStatus(b, 1, &nr, &ev, &forever).err == hipFileSuccess);
  CHECK(nr == 1);
  CHECK(ev.status == hipFileComplete);
  CHECK(ev.ret == kSize);
  hipFileBatchIODestroy(b);  // waits for a read still running (when the timeout expired early)
}

TEST_CASE("Async and batch results keep the prefix moved before a failure", "[async][batch][progress]") {
  ::setenv("HIPFILE_PARALLEL_IO", "false", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "64k", 1);
  ClosedDriver guard;
  const std::size_t n = 8 * kSize;
  TempFile f(n, 33);
  Registered r(f.path(), O_RDONLY);
  DeviceMem dev(n);
  ScopedSyscalls sc;
  sc.script().fail_after = 2;
  sc.script().fail_errno = EIO;
  SECTION("async") {
    hipStream_t s = nullptr;
    HIP_CHECK(hipStreamCreate(&s));
    std::size_t size = n;
    hoff_t foff = 0, boff = 0;
    ssize_t bytes = -77;
    REQUIRE(hipFileReadAsync(r.handle, dev.get(), &size, &foff, &boff, &bytes, s).err == hipFileSuccess);
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == static_cast<ssize_t>(2 * kSize));
    HIP_CHECK(hipStreamDestroy(s));
  }
  SECTION("batch") {
    hipFileBatchHandle_t b = nullptr;
    REQUIRE(hipFileBatchIOSetUp(&b, 1).err == hipFileSuccess);
    hipFileIOParams_t io{};
    io.mode = hipFileBatch;
    io.opcode = hipFileBatchRead;
    io.fh = r.handle;
    io.u.batch.devPtr_base = dev.get();
    io.u.batch.size = n;
    REQUIRE(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileSuccess);
    hipFileIOEvents_t ev{};
    unsigned nr = 1;
    REQUIRE(hipFileBatchIOGetStatus(b, 1, &nr, &ev, nullptr).err == hipFileSuccess);
    CHECK(ev.status == hipFileComplete);
    CHECK(ev.ret == 2 * kSize);
    hipFileBatchIODestroy(b);
  }
  CHECK(to_host(dev.get(), 2 * kSize) == pattern(2 * kSize, 33));
  ::unsetenv("HIPFILE_PARALLEL_IO");
  ::unsetenv("HIPFILE_CHUNK_SIZE");
}
