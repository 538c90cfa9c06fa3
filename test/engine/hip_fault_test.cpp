// SPDX-License-Identifier: MIT
// HIP runtime failures inside I/O (injected through hip-cpu) come back as
// -hipFileHipDriverError, never as a raw -hipError_t, and the engine recovers. Staging memory is
// allocated once and reused.
#include "../c_api/helpers.hpp"
#include "gpu/copy.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

using namespace hipfile::test;

TEST_CASE("A failed device copy fails the request with HipDriverError", "[hip]") {
  ClosedDriver guard;
  const std::size_t n = GENERATE(std::size_t{64} << 10, std::size_t{24} << 20);  // inline and workers
  CAPTURE(n);
  const std::string api = GENERATE("hipMemcpyAsync", "hipEventSynchronize", "hipEventQuery", "hipStreamSynchronize");
  CAPTURE(api);
  // Workers wait for their slots' events by polling them (hipEventQuery, the default), or in
  // hipEventSynchronize when they spin; callers' threads (requests up to 1 MiB) always spin.
  // Set before the driver opens (the registration below opens it).
  ::setenv("HIPFILE_WAIT", api == "hipEventSynchronize" ? "spin" : "poll", 1);
  TempFile f(n, 71);
  Registered r(f.path(), O_RDWR);
  DeviceMem mem(n);
  ::unsetenv("HIPFILE_WAIT");
  const bool on_workers = n > (1u << 20);
  // A single-chunk request never waits on a slot's event, only on the lane's stream.
  const bool read_reaches_api = (api != "hipEventSynchronize" && api != "hipEventQuery") || on_workers;
  const bool write_reaches_api = api == "hipMemcpyAsync" || api == "hipEventSynchronize" || on_workers && api == "hipEventQuery";
  // Several workers: the failing call may be a later chunk's, and the prefix that moved before
  // it is returned as a short count (POSIX's convention) instead of the error.
  const bool parallel = on_workers;
  auto failed_or_prefix = [&](ssize_t got, const std::vector<std::byte>* expect) {
    if (got == -hipFileHipDriverError) return true;
    if (!parallel || got <= 0 || got >= static_cast<ssize_t>(n)) return false;
    return expect == nullptr || to_host(mem.get(), static_cast<std::size_t>(got)) ==
                                    std::vector<std::byte>(expect->begin(), expect->begin() + got);
  };
  const auto file = pattern(n, 71);
  hipcpuInjectFault(api.c_str(), 1, 1, hipErrorLaunchFailure);
  ssize_t rd = hipFileRead(r.handle, mem.get(), n, 0, 0);
  hipcpuClearFaults();
  if (read_reaches_api) CHECK(failed_or_prefix(rd, &file));
  hipcpuInjectFault(api.c_str(), 1, 1, hipErrorLaunchFailure);
  ssize_t w = hipFileWrite(r.handle, mem.get(), n, 0, 0);
  hipcpuClearFaults();
  if (write_reaches_api) CHECK(failed_or_prefix(w, nullptr));
  // Recovery: both directions work again.
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 71));
}

TEST_CASE("A staging allocation failure is reported and retried on the next request", "[hip]") {
  ClosedDriver guard;
  const std::size_t n = 256u << 10;
  TempFile f(n, 72);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  hipcpuInjectFault("hipHostRegister", 1, 1, hipErrorOutOfMemory);  // pinning the staging slot
  CHECK(hipFileRead(r.handle, mem.get(), n, 0, 0) == -hipFileHipDriverError);
  hipcpuClearFaults();
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 72));
}

TEST_CASE("A failed pointer query is HipDriverError, and an allocation check precedes I/O", "[hip]") {
  ClosedDriver guard;
  TempFile f(4096, 73);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(4096);
  hipcpuInjectFault("hipPointerGetAttributes", 1, 1, hipErrorUnknown);
  CHECK(hipFileRead(r.handle, mem.get(), 4096, 0, 0) == -hipFileHipDriverError);
  hipcpuClearFaults();
  hipcpuInjectFault("hipPointerGetAttributes", 1, 1, hipErrorUnknown);
  hipFileError_t e = hipFileBufRegister(mem.get(), 4096, 0);
  hipcpuClearFaults();
  CHECK(e.err == hipFileHipDriverError);
  CHECK(e.hip_drv_err == hipErrorUnknown);
}

TEST_CASE("Staging memory is allocated once and reused", "[hip]") {
  ClosedDriver guard;
  const std::size_t n = 32u << 20;
  TempFile f(n, 74);
  Registered r(f.path(), O_RDWR);
  DeviceMem mem(n);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));  // warm up
  REQUIRE(hipFileRead(r.handle, mem.get(), 4096, 0, 0) == 4096);
  REQUIRE(hipFileWrite(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  hipcpuResetCallCounts();
  for (int i = 0; i < 5; ++i) {
    REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
    REQUIRE(hipFileRead(r.handle, mem.get(), 4096, 4096, 0) == 4096);
    REQUIRE(hipFileWrite(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  }
  // Staging slots are pinned with hipHostRegister; the mapped path's pins are read-only ones.
  CHECK(hipcpuCallCount("hipHostRegister") == hipcpuCallCount("hipHostRegister.ReadOnly"));
  CHECK(hipcpuCallCount("hipHostMalloc") == 0);
  CHECK(hipcpuCallCount("hipStreamCreateWithFlags") == 0);
  CHECK(hipcpuCallCount("hipMemcpyAsync") > 0);
}
#endif

#ifdef __HIP_PLATFORM_CPU__
namespace {

// Holds the device's NULL stream (and so every blocking stream's later work) on a pinned word
// until open(); `opened` says whether that happened yet.
struct NullStreamGate {
  std::uint32_t* word = nullptr;
  void* device_word = nullptr;
  std::atomic<bool> opened{false};
  NullStreamGate() {
    HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&word), sizeof *word, hipHostMallocMapped | hipHostMallocPortable));
    *word = 0;
    HIP_CHECK(hipHostGetDevicePointer(&device_word, word, 0));
    HIP_CHECK(hipStreamWaitValue32(nullptr, device_word, 1, hipStreamWaitValueGte, 0xFFFFFFFFu));
  }
  void open() {
    opened = true;
    __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST);
  }
  ~NullStreamGate() {
    open();
    (void)hipDeviceSynchronize();
    (void)hipHostFree(word);
  }
};

}  // namespace

TEST_CASE("A failed synchronize while draining waits for the copies before anything is released", "[hip]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;  // inline: a blocking lane, which follows the NULL stream
  TempFile f(n, 75);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  fill_device(mem.get(), 0, n);
  REQUIRE(hipFileRead(r.handle, mem.get(), 4096, 0, 0) == 4096);  // the lane exists now
  ssize_t got = 0;
  {
    NullStreamGate gate;  // the read's copy is queued behind it and cannot run yet
    std::thread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      gate.open();
    });
    hipcpuInjectFault("hipStreamSynchronize", 1, 1, hipErrorLaunchFailure);
    got = hipFileRead(r.handle, mem.get(), n, 0, 0);
    // The copy could run only after the gate opened: returning earlier would let it land in
    // the buffer (and read a staging slot) after the error was reported.
    CHECK(gate.opened);
    hipcpuClearFaults();
    opener.join();
  }
  CHECK(got == -hipFileHipDriverError);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 75));
}

TEST_CASE("A lane whose copies cannot be confirmed is never reused or freed", "[hip]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;
  TempFile f(n, 76);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  const std::size_t live_before = hipcpuLiveHostAllocations();  // the driver is closed: no lane
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  hipcpuInjectFault("hipStreamSynchronize", 1, 1, hipErrorLaunchFailure);
  hipcpuInjectFault("hipStreamQuery", 1, 1, hipErrorLaunchFailure);
  CHECK(hipFileRead(r.handle, mem.get(), n, 0, 0) == -hipFileHipDriverError);
  hipcpuClearFaults();
  // The failed request's copy may still be writing the buffer (that is what could not be
  // confirmed): the application waits for the device before it uses the buffer again.
  HIP_CHECK(hipDeviceSynchronize());
  // The next request gets a new lane (new pinned slots); the poisoned one's memory is kept.
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 76));
  ClosedDriver::close_all();
  // Every lane is freed at the last close except the poisoned one: its two pinned slots stay.
  CHECK(hipcpuLiveHostAllocations() == live_before + 2);
}

TEST_CASE("Managed memory is written after the NULL stream's work on it, as device memory is", "[hip][managed]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;
  TempFile f(n, 77);
  Registered r(f.path(), O_RDWR);
  void* managed = nullptr;
  HIP_CHECK(hipMallocManaged(&managed, n, hipMemAttachGlobal));
  std::memset(managed, 0x11, n);
  {
    NullStreamGate gate;  // stands for a kernel still running on the NULL stream
    HIP_CHECK(hipMemsetAsync(managed, 0x22, n, nullptr));  // what that kernel produces
    std::thread opener([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      gate.open();
    });
    CHECK(hipFileWrite(r.handle, managed, n, 0, 0) == static_cast<ssize_t>(n));
    opener.join();
  }
  CHECK(read_file(f.path()) == std::vector<std::byte>(n, std::byte{0x22}));
  HIP_CHECK(hipFree(managed));
}

TEST_CASE("Unregistered managed memory the runtime cannot bound is refused", "[hip][managed]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;
  TempFile f(2 * n, 78);
  Registered r(f.path(), O_RDWR);
  void* managed = nullptr;
  HIP_CHECK(hipMallocManaged(&managed, n, hipMemAttachGlobal));
  // 128 KiB into a 64 KiB allocation: with the range known it is out of bounds...
  CHECK(hipFileRead(r.handle, managed, 2 * n, 0, 0) == -hipFileInvalidValue);
  // ...and without it nothing can be bounded: every size is refused, none runs past the end.
  for (std::size_t size : {2 * n, n}) {
    CAPTURE(size);
    hipcpuInjectFault("hipMemGetAddressRange", 1, 1, hipErrorNotFound);
    CHECK(hipFileRead(r.handle, managed, size, 0, 0) == -hipFileInvalidValue);
    hipcpuClearFaults();
    hipcpuInjectFault("hipMemGetAddressRange", 1, 1, hipErrorNotFound);
    CHECK(hipFileWrite(r.handle, managed, size, 0, 0) == -hipFileInvalidValue);
    hipcpuClearFaults();
  }
  CHECK(read_file(f.path()) == pattern(2 * n, 78));
  // A registration bounds it instead.
  REQUIRE(hipFileBufRegister(managed, n, 0).err == hipFileSuccess);
  hipcpuInjectFault("hipMemGetAddressRange", 1, 1, hipErrorNotFound);
  CHECK(hipFileRead(r.handle, managed, n, 0, 0) == static_cast<ssize_t>(n));
  hipcpuClearFaults();
  CHECK(std::memcmp(managed, pattern(n, 78).data(), n) == 0);
  REQUIRE(hipFileBufDeregister(managed).err == hipFileSuccess);
  HIP_CHECK(hipFree(managed));
}
TEST_CASE("Pinned staging memory: page-aligned, registered while it lives, gone after; a failed pin leaves nothing", "[hip]") {
  const std::size_t live = hipcpuLiveHostAllocations();
  const std::size_t bytes = (4u << 20) + 4096;
  void* p = nullptr;
  REQUIRE(hipfile::gpu::alloc_pinned(p, bytes) == hipSuccess);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % 4096 == 0);
  CHECK(hipcpuLiveHostAllocations() == live + 1);
  std::memset(p, 0x3c, bytes);
  DeviceMem mem(bytes);
  HIP_CHECK(hipMemcpy(mem.get(), p, bytes, hipMemcpyHostToDevice));
  CHECK(to_host(mem.get(), bytes) == std::vector<std::byte>(bytes, std::byte{0x3c}));
  CHECK(hipfile::gpu::free_pinned(p, bytes) == hipSuccess);
  CHECK(hipcpuLiveHostAllocations() == live);
  hipcpuInjectFault("hipHostRegister", 1, 1, hipErrorOutOfMemory);
  void* q = reinterpret_cast<void*>(1);
  CHECK(hipfile::gpu::alloc_pinned(q, bytes) == hipErrorOutOfMemory);
  hipcpuClearFaults();
  CHECK(q == nullptr);
  CHECK(hipcpuLiveHostAllocations() == live);
}
#endif
