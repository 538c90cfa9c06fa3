// SPDX-License-Identifier: MIT
// Async and batch I/O with two devices: the halves of one file read concurrently on a
// stream of device 0 into device-0 memory and on a stream of device 1 into device-1 memory,
// writes from both, a batch mixing both devices' buffers, the caller's current device left as
// it was, and a device-1 buffer used from a device-0 stream (documented in doc/async-batch.md:
// it works, the buffer's device does the copies; upstream returns InvalidValue). Runs with two
// hip-cpu devices in CI (HIPCPU_DEVICE_COUNT=2) and on real GPU pairs; skips on one device.
#include <hipfile++/batch.hpp>

#include "common.hpp"

#include <sys/types.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

using namespace hipfile::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

int device_count() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
}

int current_device() {
  int d = -1;
  (void)hipGetDevice(&d);
  return d;
}

#define NEED_TWO_DEVICES() \
  if (device_count() < 2) HIPFILE_SKIP("fewer than two devices")

/// A stream created on `device`; the caller's current device is restored.
struct DevStream {
  hipStream_t s = nullptr;
  explicit DevStream(int device) {
    const int old = current_device();
    HIP_CHECK(hipSetDevice(device));
    const hipError_t e = hipStreamCreate(&s);
    HIP_CHECK(hipSetDevice(old));
    HIP_CHECK(e);
#if HIP_VERSION_MAJOR >= 6  // ROCm 5 has no hipStreamGetDevice
    hipDevice_t d = -1;
    HIP_CHECK(hipStreamGetDevice(s, &d));
    REQUIRE(d == device);
#endif
  }
  ~DevStream() { (void)hipStreamDestroy(s); }
  DevStream(const DevStream&) = delete;
  DevStream& operator=(const DevStream&) = delete;
  operator hipStream_t() const { return s; }
};

/// What the device pointer's own attributes say its device is.
int buffer_device(const void* p) {
  hipPointerAttribute_t a{};
  REQUIRE(hipPointerGetAttributes(&a, p) == hipSuccess);
  return a.device;
}

ssize_t load(const ssize_t& v) { return __atomic_load_n(&v, __ATOMIC_SEQ_CST); }

std::vector<hipFileIOEvents_t> collect(hipFileBatchHandle_t b, unsigned n, int caller_device) {
  std::vector<hipFileIOEvents_t> all;
  while (all.size() < n) {
    std::vector<hipFileIOEvents_t> ev(n);
    unsigned nr = n;
    HF_OK(hipFileBatchIOGetStatus(b, 1, &nr, ev.data(), nullptr));
    REQUIRE(current_device() == caller_device);
    all.insert(all.end(), ev.begin(), ev.begin() + nr);
  }
  return all;
}

}  // namespace

TEST_CASE("async reads of the two halves of one file run concurrently on both devices' streams",
          "[multidevice]") {
  NEED_TWO_DEVICES();
  DriverScope drv;
  const std::size_t half = 8 * kMiB + 4096 + 9;  // odd: unaligned tail on both halves
  TempFile f(2 * half, 61);
  OpenFile of(f.path());
  DeviceMem b0(half, 0), b1(half, 1);
  REQUIRE(buffer_device(b0.get()) == 0);
  REQUIRE(buffer_device(b1.get()) == 1);
  fill_device(b0.get(), 0, half);
  fill_device(b1.get(), 0, half);
  DevStream s0(0), s1(1);

  const int caller = GENERATE(0, 1);                                     // the calling thread's device
  const unsigned flags = GENERATE(0u, unsigned{HIPFILE_STREAM_FLAGS_MASK} & ~8u);  // deferred / fixed
  CAPTURE(caller, flags);
  HF_OK(hipFileStreamRegister(s0, flags));
  HF_OK(hipFileStreamRegister(s1, flags));
  REQUIRE(hipSetDevice(caller) == hipSuccess);

  std::size_t size0 = half, size1 = half;
  hoff_t foff0 = 0, foff1 = static_cast<hoff_t>(half), boff0 = 0, boff1 = 0;
  ssize_t bytes0 = -77, bytes1 = -77;
  {
    // Both streams held on the device until both operations are queued: they then run at once.
    Gate gate;
    gate.close_on(s0);
    gate.close_on(s1);
    HF_OK(hipFileReadAsync(of.fh, b0.get(), &size0, &foff0, &boff0, &bytes0, s0));
    CHECK(current_device() == caller);
    HF_OK(hipFileReadAsync(of.fh, b1.get(), &size1, &foff1, &boff1, &bytes1, s1));
    CHECK(current_device() == caller);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(load(bytes0) == 0);  // nothing ran past the gate
    CHECK(load(bytes1) == 0);
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s0));
    HIP_CHECK(hipStreamSynchronize(s1));
  }
  CHECK(current_device() == caller);
  CHECK(bytes0 == static_cast<ssize_t>(half));
  CHECK(bytes1 == static_cast<ssize_t>(half));
  CHECK(same(to_host(b0.get(), half), pattern(half, 61, 0)));
  CHECK(same(to_host(b1.get(), half), pattern(half, 61, half)));

  HF_OK(hipFileStreamDeregister(s0));
  HF_OK(hipFileStreamDeregister(s1));
  CHECK(current_device() == caller);
  REQUIRE(hipSetDevice(0) == hipSuccess);
}

TEST_CASE("async writes from both devices' buffers on their own streams", "[multidevice]") {
  NEED_TWO_DEVICES();
  DriverScope drv;
  const std::size_t half = 4 * kMiB + 513;
  TempFile f(2 * half + 8192, 62);
  OpenFile of(f.path());
  DeviceMem b0(half, 0), b1(half + 4096, 1);  // device 1 writes from buffer offset 4096
  to_device(b0.get(), pattern(half, 63, 0));
  to_device(b1.bytes() + 4096, pattern(half, 63, half));
  DevStream s0(0), s1(1);
  const int caller = GENERATE(0, 1);
  CAPTURE(caller);
  REQUIRE(hipSetDevice(caller) == hipSuccess);

  std::size_t size0 = half, size1 = half;
  hoff_t foff0 = 0, foff1 = static_cast<hoff_t>(half), boff0 = 0, boff1 = 4096;
  ssize_t w0 = -77, w1 = -77;
  {
    Gate gate;
    gate.close_on(s0);
    gate.close_on(s1);
    HF_OK(hipFileWriteAsync(of.fh, b0.get(), &size0, &foff0, &boff0, &w0, s0));
    CHECK(current_device() == caller);
    HF_OK(hipFileWriteAsync(of.fh, b1.get(), &size1, &foff1, &boff1, &w1, s1));
    CHECK(current_device() == caller);
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s0));
    HIP_CHECK(hipStreamSynchronize(s1));
  }
  CHECK(current_device() == caller);
  CHECK(w0 == static_cast<ssize_t>(half));
  CHECK(w1 == static_cast<ssize_t>(half));
  auto file = read_file(f.path());
  REQUIRE(file.size() == 2 * half + 8192);
  CHECK(same(std::vector<std::byte>(file.begin(), file.begin() + 2 * half), pattern(2 * half, 63)));
  // Nothing written past the two ranges: the tail still holds the original bytes.
  CHECK(same(std::vector<std::byte>(file.begin() + 2 * half, file.end()), pattern(8192, 62, 2 * half)));
  REQUIRE(hipSetDevice(0) == hipSuccess);
}

TEST_CASE("each device's stream orders a read and the write of the same buffer", "[multidevice]") {
  NEED_TWO_DEVICES();
  DriverScope drv;
  // Device d reads quarter d and writes it back to quarter d + 2, on its own stream, no sync in
  // between: the write must see what the read put into the buffer.
  const std::size_t q = 2 * kMiB + 77;
  TempFile f(4 * q, 64);
  OpenFile of(f.path());
  DeviceMem b0(q, 0), b1(q, 1);
  fill_device(b0.get(), 0xAB, q);
  fill_device(b1.get(), 0xCD, q);
  DevStream s0(0), s1(1);
  DeviceMem* bufs[2] = {&b0, &b1};
  hipStream_t streams[2] = {s0, s1};
  std::size_t size[2][2];
  hoff_t foff[2][2], boff[2][2];
  ssize_t bytes[2][2];
  Gate gate;
  gate.close_on(s0);
  gate.close_on(s1);
  for (int d = 0; d < 2; ++d) {
    size[d][0] = size[d][1] = q;
    foff[d][0] = static_cast<hoff_t>(q) * d;
    foff[d][1] = static_cast<hoff_t>(q) * (d + 2);
    boff[d][0] = boff[d][1] = 0;
    bytes[d][0] = bytes[d][1] = -77;
    HF_OK(hipFileReadAsync(of.fh, bufs[d]->get(), &size[d][0], &foff[d][0], &boff[d][0], &bytes[d][0], streams[d]));
    HF_OK(hipFileWriteAsync(of.fh, bufs[d]->get(), &size[d][1], &foff[d][1], &boff[d][1], &bytes[d][1], streams[d]));
    CHECK(current_device() == 0);
  }
  gate.release();
  HIP_CHECK(hipStreamSynchronize(s0));
  HIP_CHECK(hipStreamSynchronize(s1));
  for (int d = 0; d < 2; ++d) {
    CHECK(bytes[d][0] == static_cast<ssize_t>(q));
    CHECK(bytes[d][1] == static_cast<ssize_t>(q));
  }
  auto file = read_file(f.path());
  std::vector<std::byte> want = pattern(2 * q, 64);
  want.insert(want.end(), want.begin(), want.end());  // quarters 2 and 3 are copies of 0 and 1
  CHECK(same(file, want));
}

TEST_CASE("a batch mixes reads into device-0 and device-1 buffers, then writes from both",
          "[multidevice]") {
  NEED_TWO_DEVICES();
  DriverScope drv;
  constexpr unsigned n = 16;
  const std::size_t chunk = 512 * 1024 + 100;  // odd sizes and offsets
  const std::size_t file_size = n * chunk;
  TempFile f(file_size, 65);
  OpenFile of(f.path());
  // Operation i uses the buffer of device i % 2 at buffer offset (i / 2) * chunk.
  DeviceMem b0((n / 2) * chunk, 0), b1((n / 2) * chunk, 1);
  fill_device(b0.get(), 0, b0.size());
  fill_device(b1.get(), 0, b1.size());
  DeviceMem* bufs[2] = {&b0, &b1};
  const int caller = GENERATE(0, 1);
  CAPTURE(caller);
  REQUIRE(hipSetDevice(caller) == hipSuccess);

  hipFileBatchHandle_t b = nullptr;
  HF_OK(hipFileBatchIOSetUp(&b, n));
  CHECK(current_device() == caller);
  std::vector<hipFileIOParams_t> ios;
  for (unsigned i = 0; i < n; ++i)
    ios.push_back(hipfile::batch_op(hipFileBatchRead, of.fh, bufs[i % 2]->get(), chunk, static_cast<hoff_t>(i * chunk),
                           static_cast<hoff_t>((i / 2) * chunk), reinterpret_cast<void*>(std::uintptr_t{i + 1})));
  HF_OK(hipFileBatchIOSubmit(b, n, ios.data(), 0));
  CHECK(current_device() == caller);
  auto ev = collect(b, n, caller);
  std::set<std::uintptr_t> cookies;
  for (const auto& e : ev) {
    CAPTURE(reinterpret_cast<std::uintptr_t>(e.cookie));
    CHECK(e.status == hipFileComplete);
    CHECK(e.ret == chunk);
    cookies.insert(reinterpret_cast<std::uintptr_t>(e.cookie));
  }
  CHECK(cookies.size() == n);
  for (unsigned i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(same(to_host(bufs[i % 2]->bytes() + (i / 2) * chunk, chunk), pattern(chunk, 65, i * chunk)));
  }

  // Writes from both devices' buffers, swapped: device 1's chunks go where device 0's came from.
  std::vector<hipFileIOParams_t> wios;
  for (unsigned i = 0; i < n; ++i)
    wios.push_back(hipfile::batch_op(hipFileBatchWrite, of.fh, bufs[(i + 1) % 2]->get(), chunk,
                            static_cast<hoff_t>(i * chunk), static_cast<hoff_t>((i / 2) * chunk),
                            reinterpret_cast<void*>(std::uintptr_t{100 + i})));
  HF_OK(hipFileBatchIOSubmit(b, n, wios.data(), 0));
  CHECK(current_device() == caller);
  ev = collect(b, n, caller);
  for (const auto& e : ev) {
    CAPTURE(reinterpret_cast<std::uintptr_t>(e.cookie));
    CHECK(e.status == hipFileComplete);
    CHECK(e.ret == chunk);
  }
  hipFileBatchIODestroy(b);
  CHECK(current_device() == caller);
  // Chunk i of the file now holds what was read into the other device's slot (i / 2): chunk
  // i ^ 1 of the original file.
  auto file = read_file(f.path());
  REQUIRE(file.size() == file_size);
  std::vector<std::byte> want;
  for (unsigned i = 0; i < n; ++i) {
    auto p = pattern(chunk, 65, (i ^ 1u) * chunk);
    want.insert(want.end(), p.begin(), p.end());
  }
  CHECK(same(file, want));
  REQUIRE(hipSetDevice(0) == hipSuccess);
}

TEST_CASE("a device-1 buffer used from a device-0 stream works, ordered on that stream",
          "[multidevice]") {
  // doc/async-batch.md, "Differences from upstream": buffer device != stream device is
  // InvalidValue upstream; here it works and the buffer's own device does the copies.
  NEED_TWO_DEVICES();
  DriverScope drv;
  const std::size_t n = 3 * kMiB + 4096 + 5;
  TempFile f(2 * n, 66);
  OpenFile of(f.path());
  DeviceMem b1(n, 1);
  fill_device(b1.get(), 0, n);
  DevStream s0(0);
  const bool registered = GENERATE(false, true);
  const int caller = GENERATE(0, 1);
  CAPTURE(registered, caller);
  REQUIRE(hipSetDevice(caller) == hipSuccess);
  if (registered) HF_OK(hipFileBufRegister(b1.get(), n, 0));

  std::size_t size = n;
  hoff_t foff = static_cast<hoff_t>(n), boff = 0;
  ssize_t bytes = -77;
  {
    Gate gate;
    gate.close_on(s0);
    const hipFileError_t e = hipFileReadAsync(of.fh, b1.get(), &size, &foff, &boff, &bytes, s0);
    CHECK(e.err == hipFileSuccess);
    CHECK(e.hip_drv_err == hipSuccess);
    CHECK(current_device() == caller);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    CHECK(load(bytes) == 0);  // held by the device-0 stream
    gate.release();
    HIP_CHECK(hipStreamSynchronize(s0));
  }
  CHECK(bytes == static_cast<ssize_t>(n));
  CHECK(same(to_host(b1.get(), n), pattern(n, 66, n)));

  // And back: write it from the device-1 buffer through the device-0 stream to the first half.
  foff = 0;
  ssize_t written = -77;
  const hipFileError_t w = hipFileWriteAsync(of.fh, b1.get(), &size, &foff, &boff, &written, s0);
  CHECK(w.err == hipFileSuccess);
  CHECK(current_device() == caller);
  HIP_CHECK(hipStreamSynchronize(s0));
  CHECK(written == static_cast<ssize_t>(n));
  auto file = read_file(f.path());
  CHECK(same(std::vector<std::byte>(file.begin(), file.begin() + n), pattern(n, 66, n)));
  CHECK(same(std::vector<std::byte>(file.begin() + n, file.end()), pattern(n, 66, n)));

  if (registered) HF_OK(hipFileBufDeregister(b1.get()));
  CHECK(current_device() == caller);
  REQUIRE(hipSetDevice(0) == hipSuccess);
}
