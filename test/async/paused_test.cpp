// SPDX-License-Identifier: MIT
// Upstream hipFile's HipAsyncStreamUnfixedPaused* pattern, written here from scratch: a stream
// paused on AMD signal memory (hipExtMallocWithFlags + hipStreamWaitValue64, after checking
// hipDeviceAttributeCanUseStreamWaitValue), async reads and writes queued behind the pause with
// parameters the caller changes while it holds, then released by hipStreamWriteValue64 from
// another stream. Built where the HIP runtime has these calls (hip-cpu, ROCm).
#include "common.hpp"

#include <cstring>

using namespace hipfile::test;

namespace {

constexpr std::size_t kKiB = 1024;

// A stream held on a 64-bit signal until release() (written in stream order by another stream).
struct SignalPause {
  std::uint64_t* signal = nullptr;
  Stream releaser;
  SignalPause() { HIP_CHECK(hipExtMallocWithFlags(reinterpret_cast<void**>(&signal), 8, hipMallocSignalMemory)); }
  ~SignalPause() {
    release();
    (void)hipDeviceSynchronize();
    (void)hipFree(signal);
  }
  void hold(hipStream_t s) { HIP_CHECK(hipStreamWaitValue64(s, signal, 1, hipStreamWaitValueEq)); }
  void release() {
    if (hipStreamWriteValue64(releaser, signal, 1, 0) == hipSuccess) (void)hipStreamSynchronize(releaser);
  }
};

bool can_wait_on_values() {
  int yes = 0;
  return hipDeviceGetAttribute(&yes, hipDeviceAttributeCanUseStreamWaitValue, 0) == hipSuccess && yes == 1;
}

}  // namespace

TEST_CASE("unfixed parameters changed while the stream is paused on signal memory are the ones used") {
  if (!can_wait_on_values()) HIPFILE_SKIP("the device cannot wait on stream values");
  DriverScope drv;
  const std::size_t file_size = 256 * kKiB;
  TempFile f(file_size, 23);
  OpenFile of(f.path());
  DeviceMem dev(128 * kKiB);
  fill_device(dev.get(), 0, dev.size());
  Stream s;
  HF_OK(hipFileStreamRegister(s, 0));  // nothing fixed: every parameter is read when reached
  SignalPause pause;
  pause.hold(s);
  std::size_t size = 96 * kKiB;  // the size may shrink before the stream reaches the read, not grow
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = -77;
  HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
  // The stream holds: change every parameter, then let it go.
  CHECK(hipStreamQuery(s) == hipErrorNotReady);
  size = 64 * kKiB;
  foff = 96 * kKiB;
  boff = 32 * kKiB;
  pause.release();
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(bytes == static_cast<ssize_t>(64 * kKiB));
  CHECK(same(to_host(dev.bytes() + 32 * kKiB, 64 * kKiB), pattern(64 * kKiB, 23, 96 * kKiB)));
  CHECK(same(to_host(dev.bytes(), 32 * kKiB), std::vector<std::byte>(32 * kKiB)));  // untouched
  CHECK(same(to_host(dev.bytes() + 96 * kKiB, 32 * kKiB), std::vector<std::byte>(32 * kKiB)));
  HF_OK(hipFileStreamDeregister(s));
}

TEST_CASE("a paused write uses the size and offsets set before the release") {
  if (!can_wait_on_values()) HIPFILE_SKIP("the device cannot wait on stream values");
  DriverScope drv;
  TempFile f(128 * kKiB, 31);
  OpenFile of(f.path());
  DeviceMem dev(64 * kKiB);
  HIP_CHECK(hipMemcpy(dev.get(), pattern(64 * kKiB, 77).data(), 64 * kKiB, hipMemcpyHostToDevice));
  Stream s;
  HF_OK(hipFileStreamRegister(s, 0));
  SignalPause pause;
  pause.hold(s);
  std::size_t size = 32 * kKiB;
  hoff_t foff = 0, boff = 0;
  ssize_t written = -77;
  HF_OK(hipFileWriteAsync(of.fh, dev.get(), &size, &foff, &boff, &written, s));
  size = 8 * kKiB;
  foff = 40 * kKiB;
  boff = 16 * kKiB;
  pause.release();
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(written == static_cast<ssize_t>(8 * kKiB));
  auto file = read_file(f.path());
  auto before = pattern(128 * kKiB, 31);
  auto wrote = pattern(64 * kKiB, 77);
  std::memcpy(before.data() + 40 * kKiB, wrote.data() + 16 * kKiB, 8 * kKiB);
  CHECK(same(file, before));  // those 8 KiB and nothing else changed
  HF_OK(hipFileStreamDeregister(s));
}
