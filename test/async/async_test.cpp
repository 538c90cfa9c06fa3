// SPDX-License-Identifier: MIT
// hipFileReadAsync / hipFileWriteAsync: data, fixed and deferred parameters, stream ordering,
// many streams, bad input, injected failures.
#include "common.hpp"

#include <sys/types.h>

#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>
#endif

using namespace hipfile::test;

namespace {
constexpr std::size_t kMiB = 1u << 20;
enum class Direction { Read, Write };
}

TEST_CASE("every flag combination reads and writes the right bytes") {
  DriverScope drv;
  const std::size_t file_size = 4 * kMiB;
  TempFile f(file_size, 11);
  OpenFile of(f.path());
  DeviceMem dev(3 * kMiB);
  for (unsigned flags = 0; flags <= HIPFILE_STREAM_FLAGS_MASK; ++flags) {
    CAPTURE(flags);
    Stream s;
    HF_OK(hipFileStreamRegister(s, flags));
    fill_device(dev.get(), 0, dev.size());
    std::size_t size = 2 * kMiB + 4096;
    hoff_t foff = 8192, boff = 4096;
    ssize_t bytes = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    HIP_CHECK(hipStreamSynchronize(s));
    REQUIRE(bytes == static_cast<ssize_t>(size));
    CHECK(same(to_host(dev.bytes() + boff, size), pattern(size, 11, 8192)));
    CHECK(same(to_host(dev.bytes(), 4096), std::vector<std::byte>(4096)));  // nothing outside

    // Write it back elsewhere in the file, then check the file.
    hoff_t woff = 3 * kMiB + 4096 * flags;  // beyond what the reads cover
    std::size_t wsize = 64 * 1024;
    ssize_t written = -77;
    HF_OK(hipFileWriteAsync(of.fh, dev.get(), &wsize, &woff, &boff, &written, s));
    HIP_CHECK(hipStreamSynchronize(s));
    REQUIRE(written == static_cast<ssize_t>(wsize));
    auto file = read_file(f.path());
    CHECK(std::memcmp(file.data() + woff, pattern(wsize, 11, 8192).data(), wsize) == 0);
    HF_OK(hipFileStreamDeregister(s));
  }
}

TEST_CASE("deferred parameters are read when the stream reaches the operation") {
  DriverScope drv;
  TempFile f(kMiB, 5);
  OpenFile of(f.path());
  DeviceMem dev(kMiB);
  fill_device(dev.get(), 0, dev.size());
  Stream s;

  SECTION("shrunk size and moved offsets are honoured (unregistered stream: nothing fixed)") {
    std::size_t size = 256 * 1024;
    hoff_t foff = 0, boff = 0;
    ssize_t bytes = -77;
    Gate gate;
    gate.close_on(s);
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    size = 1000;
    foff = 12345;
    boff = 777;
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    REQUIRE(bytes == 1000);
    CHECK(same(to_host(dev.bytes() + 777, 1000), pattern(1000, 5, 12345)));
    CHECK(same(to_host(dev.bytes(), 777), std::vector<std::byte>(777)));
  }
  SECTION("fixed parameters keep their submission values") {
    HF_OK(hipFileStreamRegister(s, HIPFILE_STREAM_FIXED_BUF_OFFSET | HIPFILE_STREAM_FIXED_FILE_OFFSET |
                                       HIPFILE_STREAM_FIXED_FILE_SIZE));
    std::size_t size = 4096;
    hoff_t foff = 4096, boff = 8192;
    ssize_t bytes = -77;
    Gate gate;
    gate.close_on(s);
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    size = 1;
    foff = 0;
    boff = 0;
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    REQUIRE(bytes == 4096);
    CHECK(same(to_host(dev.bytes() + 8192, 4096), pattern(4096, 5, 4096)));
    HF_OK(hipFileStreamDeregister(s));
  }
  SECTION("a size that grew is rejected through the bytes result") {
    std::size_t size = 4096;
    hoff_t foff = 0, boff = 0;
    ssize_t bytes = -77;
    Gate gate;
    gate.close_on(s);
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    size = 8192;
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == -static_cast<ssize_t>(hipFileInvalidValue));
    CHECK(same(to_host(dev.bytes(), 8192), std::vector<std::byte>(8192)));
  }
  SECTION("a deferred offset that turned invalid fails through the bytes result") {
    std::size_t size = 4096;
    hoff_t foff = 0, boff = 0;
    ssize_t bytes = -77;
    Gate gate;
    gate.close_on(s);
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    boff = static_cast<hoff_t>(kMiB);  // past the allocation
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == -static_cast<ssize_t>(hipFileInvalidValue));
  }
}

TEST_CASE("operations are ordered with other work on the stream") {
  DriverScope drv;
  TempFile f(2 * kMiB, 21);
  OpenFile of(f.path());
  DeviceMem dev(2 * kMiB);
  Stream s;
  void* host = nullptr;
  HIP_CHECK(hipHostMalloc(&host, 2 * kMiB, 0));

  SECTION("a copy after a read sees the data") {
    std::memset(host, 0, 2 * kMiB);
    std::size_t size = 2 * kMiB;
    hoff_t foff = 0, boff = 0;
    ssize_t bytes = 0;
    Gate gate;
    gate.close_on(s);  // everything below is queued before any of it runs
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    HIP_CHECK(hipMemcpyAsync(host, dev.get(), 2 * kMiB, hipMemcpyDeviceToHost, s));
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == static_cast<ssize_t>(2 * kMiB));
    CHECK(std::memcmp(host, pattern(2 * kMiB, 21).data(), 2 * kMiB) == 0);
  }
  SECTION("a write sees a copy made before it, then a later read sees the write") {
    auto data = pattern(kMiB, 99);
    std::memcpy(host, data.data(), kMiB);
    fill_device(dev.get(), 0, dev.size());
    std::size_t size = kMiB;
    hoff_t foff = static_cast<hoff_t>(kMiB), boff = 0, boff2 = static_cast<hoff_t>(kMiB);
    ssize_t written = 0, bytes = 0;
    Gate gate;
    gate.close_on(s);
    HIP_CHECK(hipMemcpyAsync(dev.get(), host, kMiB, hipMemcpyHostToDevice, s));
    HF_OK(hipFileWriteAsync(of.fh, dev.get(), &size, &foff, &boff, &written, s));
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff2, &bytes, s));
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(written == static_cast<ssize_t>(kMiB));
    CHECK(bytes == static_cast<ssize_t>(kMiB));
    CHECK(same(to_host(dev.bytes() + kMiB, kMiB), data));
  }
  SECTION("several operations in order on one stream") {
    constexpr int n = 16;
    std::vector<std::size_t> sizes(n, 64 * 1024);
    std::vector<hoff_t> foffs(n), boffs(n);
    std::vector<ssize_t> bytes(n, -77);
    for (int i = 0; i < n; ++i) {
      foffs[i] = boffs[i] = i * 64 * 1024;
      HF_OK(hipFileReadAsync(of.fh, dev.get(), &sizes[i], &foffs[i], &boffs[i], &bytes[i], s));
    }
    HIP_CHECK(hipMemcpyAsync(host, dev.get(), n * 64 * 1024, hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < n; ++i) CHECK(bytes[i] == 64 * 1024);
    CHECK(std::memcmp(host, pattern(n * 64 * 1024, 21).data(), n * 64 * 1024) == 0);
  }
  HIP_CHECK(hipHostFree(host));
}

TEST_CASE("many streams run operations concurrently") {
  DriverScope drv;
  constexpr int kStreams = 8, kOps = 6;
  constexpr std::size_t kOp = 256 * 1024;
  TempFile f(kStreams * kOps * kOp, 3);
  OpenFile of(f.path());
  DeviceMem dev(kStreams * kOps * kOp);
  std::vector<Stream> streams(kStreams);
  std::vector<std::size_t> sizes(kStreams * kOps, kOp);
  std::vector<hoff_t> offs(kStreams * kOps);
  std::vector<ssize_t> bytes(kStreams * kOps, -77);
  // Gate every stream, so that all operations are in flight together, then let them go.
  std::vector<Gate> gates(kStreams);
  for (int s = 0; s < kStreams; ++s) gates[s].close_on(streams[s]);
  for (int i = 0; i < kStreams * kOps; ++i) {
    offs[i] = static_cast<hoff_t>(i * kOp);
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &sizes[i], &offs[i], &offs[i], &bytes[i], streams[i % kStreams]));
  }
  for (auto& g : gates) g.release();
  for (auto& s : streams) HIP_CHECK(hipStreamSynchronize(s));
  for (auto b : bytes) CHECK(b == static_cast<ssize_t>(kOp));
  CHECK(same(to_host(dev.get(), dev.size()), pattern(dev.size(), 3)));
}

TEST_CASE("a blocked stream does not hold up the others") {
  DriverScope drv;
  TempFile f(kMiB, 8);
  OpenFile of(f.path());
  DeviceMem dev(kMiB);
  Stream blocked, free_stream;
  Gate gate;
  gate.close_on(blocked);
  std::size_t size = 4096;
  hoff_t off = 0;
  ssize_t b1 = -77, b2 = -77;
  HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &off, &off, &b1, blocked));
  HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &off, &off, &b2, free_stream));
  HIP_CHECK(hipStreamSynchronize(free_stream));
  CHECK(b2 == 4096);
  CHECK(b1 == 0);  // set to 0 at submission, not yet run
  gate.release();
  HIP_CHECK(hipStreamSynchronize(blocked));
  CHECK(b1 == 4096);
}

TEST_CASE("bad input is refused at submission") {
  TempFile f(kMiB, 1);
  DeviceMem dev(kMiB);
  Stream s;
  std::size_t size = 4096;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = 0;

  SECTION("driver closed: opened implicitly, and InvalidValue") {
    REQUIRE(hipFileUseCount() == 0);
    CHECK(hipFileReadAsync(nullptr, dev.get(), &size, &foff, &boff, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileUseCount() == 1);
    HF_OK(hipFileDriverClose());
  }
  SECTION("with the driver open") {
    DriverScope drv;
    OpenFile of(f.path());
    CHECK(hipFileReadAsync(of.fh, nullptr, &size, &foff, &boff, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileReadAsync(of.fh, dev.get(), nullptr, &foff, &boff, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileReadAsync(of.fh, dev.get(), &size, nullptr, &boff, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, nullptr, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileWriteAsync(of.fh, dev.get(), &size, &foff, &boff, nullptr, s).err == hipFileInvalidValue);
    int junk = 0;
    CHECK(hipFileReadAsync(reinterpret_cast<hipFileHandle_t>(&junk), dev.get(), &size, &foff, &boff, &bytes, s).err ==
          hipFileHandleNotRegistered);
    hoff_t neg = -1;
    CHECK(hipFileReadAsync(of.fh, dev.get(), &size, &neg, &boff, &bytes, s).err == hipFileInvalidValue);
    CHECK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &neg, &bytes, s).err == hipFileInvalidValue);
    std::size_t too_big = 2 * kMiB;
    CHECK(hipFileReadAsync(of.fh, dev.get(), &too_big, &foff, &boff, &bytes, s).err == hipFileInvalidValue);
#ifdef __HIP_PLATFORM_CPU__
    // Only hip-cpu validates stream handles; CUDA dereferences a garbage one and crashes.
    hipFileError_t e =
        hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, reinterpret_cast<hipStream_t>(&junk));
    CHECK(e.err == hipFileHipDriverError);
    (void)hipGetLastError();
#endif
    // A deregistered stream is an ordinary stream again (nothing fixed).
    HF_OK(hipFileStreamRegister(s, HIPFILE_STREAM_FIXED_FILE_SIZE));
    HF_OK(hipFileStreamDeregister(s));
    bytes = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == 4096);
    // Size 0: nothing to do, bytes 0.
    std::size_t zero = 0;
    bytes = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &zero, &foff, &boff, &bytes, s));
    CHECK(bytes == 0);
  }
}

TEST_CASE("failures at execution come back through the bytes result") {
  DriverScope drv;
  TempFile f(kMiB, 1);
  DeviceMem dev(kMiB);
  Stream s;
  std::size_t size = 4096;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = 0;

  SECTION("handle deregistered before the stream reached the operation") {
    auto* of = new OpenFile(f.path());
    Gate gate;
    gate.close_on(s);
    HF_OK(hipFileReadAsync(of->fh, dev.get(), &size, &foff, &boff, &bytes, s));
    delete of;
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == -static_cast<ssize_t>(hipFileHandleNotRegistered));
  }
  SECTION("writing through a read-only descriptor: -EBADF") {
    OpenFile of(f.path(), O_RDONLY);
    HF_OK(hipFileWriteAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == -EBADF);
  }
  SECTION("reading at end of file: 0 bytes") {
    OpenFile of(f.path());
    foff = static_cast<hoff_t>(kMiB);
    bytes = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes == 0);
  }
}

#ifdef __HIP_PLATFORM_CPU__
TEST_CASE("injected HIP failures") {
  DriverScope drv;
  TempFile f(kMiB, 4);
  OpenFile of(f.path());
  DeviceMem dev(kMiB);
  Stream s;
  std::size_t size = 64 * 1024;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = -77;

  SECTION("hipLaunchHostFunc fails: HipDriverError, nothing enqueued") {
    hipcpuInjectFault("hipLaunchHostFunc", 1, 1, hipErrorUnknown);
    hipFileError_t e = hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s);
    hipcpuClearFaults();
    CHECK(e.err == hipFileHipDriverError);
    CHECK(e.hip_drv_err == hipErrorUnknown);
    HIP_CHECK(hipStreamSynchronize(s));
    (void)hipGetLastError();
  }
  SECTION("a part of the operation cannot be queued: an error, and no result is stored") {
    // The caller may free *bytes as soon as the call returned an error. Here it stays allocated,
    // so that a late store would show: it stays 0, as the checks left it (upstream's order). The
    // parts queued before the failure run (doc/async-batch.md): the buffer holds, per piece,
    // either what it held or the file's bytes.
    fill_device(dev.get(), 0, dev.size());
    auto* result = new ssize_t(-77);
    Gate gate;
    gate.close_on(s);
    // A read queues: copy the window to staging (hipMemcpyAsync 1), the start (hipLaunchHostFunc
    // 1), the wait for its pread (hipStreamWaitValue32 1), the copy back (hipMemcpyAsync 2), the
    // finish (hipLaunchHostFunc 2).
    const auto [api, nth] = GENERATE(std::pair{"hipMemcpyAsync", 1}, std::pair{"hipLaunchHostFunc", 1},
                                     std::pair{"hipStreamWaitValue32", 1}, std::pair{"hipMemcpyAsync", 2},
                                     std::pair{"hipLaunchHostFunc", 2});
    CAPTURE(api, nth);
    hipcpuInjectFault(api, nth, 1, hipErrorUnknown);
    hipFileError_t e = hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, result, s);
    hipcpuClearFaults();
    CHECK(e.err == hipFileHipDriverError);
    CHECK(e.hip_drv_err == hipErrorUnknown);
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    (void)hipGetLastError();
    // What was queued before the failure has run: the next operation on the stream still works.
    std::size_t size2 = 4096;
    ssize_t bytes2 = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size2, &foff, &boff, &bytes2, s));
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(bytes2 == 4096);
    CHECK(*result == 0);
    auto piece = to_host(dev.bytes() + 4096, size - 4096);
    CHECK((same(piece, std::vector<std::byte>(size - 4096)) || same(piece, pattern(size - 4096, 4, 4096))));
    CHECK(same(to_host(dev.bytes() + size, dev.size() - size), std::vector<std::byte>(dev.size() - size)));
    delete result;
  }
  SECTION("a device without stream waits: the stream waits in host functions instead") {
    const Direction dir = GENERATE(Direction::Read, Direction::Write);
    CAPTURE(dir == Direction::Read);
    std::size_t big = 18 * kMiB;  // more pieces than the ring
    TempFile bf(big + 4096, 4);
    OpenFile bof(bf.path());
    DeviceMem bdev(big);
    hoff_t off = 4096, zero = 0;
    if (dir == Direction::Write) HIP_CHECK(hipMemset(bdev.get(), 0x3C, big));
    Gate gate;
    gate.close_on(s);
    hipcpuInjectFault("hipStreamWaitValue32", 1, 1000000, hipErrorNotSupported);
    hipFileError_t e = dir == Direction::Read ? hipFileReadAsync(bof.fh, bdev.get(), &big, &off, &zero, &bytes, s)
                                              : hipFileWriteAsync(bof.fh, bdev.get(), &big, &off, &zero, &bytes, s);
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    hipcpuClearFaults();
    HF_OK(e);
    CHECK(bytes == static_cast<ssize_t>(big));
    if (dir == Direction::Read) {
      CHECK(same(to_host(bdev.get(), big), pattern(big, 4, 4096)));
    } else {
      auto file = read_file(bf.path());
      CHECK(same(std::vector<std::byte>(file.begin() + 4096, file.begin() + 4096 + big),
                 std::vector<std::byte>(big, std::byte{0x3C})));
    }
  }
  SECTION("staging that cannot be pinned fails that call only") {
    Gate gate;
    gate.close_on(s);
    ssize_t failed = -77;
    hipcpuInjectFault("hipHostRegister", 1, 1, hipErrorOutOfMemory);
    hipFileError_t e = hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &failed, s);
    hipcpuClearFaults();
    CHECK(e.err == hipFileHipDriverError);
    CHECK(e.hip_drv_err == hipErrorOutOfMemory);
    // Not remembered: the next submission pins its staging as usual.
    ssize_t next = -77;
    HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &next, s));
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s));
    CHECK(next == static_cast<ssize_t>(size));
    CHECK(failed == 0);
    CHECK(same(to_host(dev.bytes(), size), pattern(size, 4)));
  }
}
#endif
