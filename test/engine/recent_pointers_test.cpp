// SPDX-License-Identifier: MIT
// Unregistered reads remember the calling thread's recent device allocations
// (gpu/recent_pointers): a repeated read asks the runtime one question instead of two, and a
// freed allocation is never answered from memory. hip-cpu's call counts show the questions.
#include "../c_api/helpers.hpp"
#include "gpu/recent_pointers.hpp"

#include <memory>
#include <thread>

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>

using namespace hipfile::test;

namespace {

constexpr std::size_t kKiB = 1024;

unsigned long long pointer_queries() {
  return hipcpuCallCount("hipPointerGetAttributes") + hipcpuCallCount("hipMemGetAddressRange") +
         hipcpuCallCount("hipPointerGetAttribute");
}

}  // namespace

TEST_CASE("A repeated unregistered read asks the runtime about its buffer once", "[recent]") {
  ClosedDriver guard;
  hipfile::gpu::forget_recent_pointers();
  TempFile f(256 * kKiB, 71);
  const auto file = pattern(256 * kKiB, 71);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(64 * kKiB);
  REQUIRE(hipFileRead(r.handle, mem.get(), 4 * kKiB, 0, 0) == static_cast<ssize_t>(4 * kKiB));

  hipcpuResetCallCounts();
  // Another part of the same allocation, at another file offset: answered from memory.
  REQUIRE(hipFileRead(r.handle, mem.get(), 4 * kKiB, 8 * kKiB, 12 * kKiB) == static_cast<ssize_t>(4 * kKiB));
  CHECK(hipcpuCallCount("hipPointerGetAttributes") == 0);
  CHECK(hipcpuCallCount("hipMemGetAddressRange") == 0);
  CHECK(hipcpuCallCount("hipPointerGetAttribute") == 1);  // its allocation id, still the same
  const auto back = to_host(mem.get(), 64 * kKiB);
  CHECK(std::vector<std::byte>(back.begin() + 12 * kKiB, back.begin() + 16 * kKiB) ==
        std::vector<std::byte>(file.begin() + 8 * kKiB, file.begin() + 12 * kKiB));
  // The bound is still the allocation's: one byte past its end is refused.
  CHECK(hipFileRead(r.handle, mem.get(), 4 * kKiB + 1, 0, 60 * kKiB) == -hipFileInvalidValue);
}

TEST_CASE("A freed allocation is not answered from memory", "[recent][environment]") {
  ClosedDriver guard;
  hipfile::gpu::forget_recent_pointers();
  TempFile f(1 << 20, 72);
  const auto file = pattern(1 << 20, 72);
  Registered r(f.path(), O_RDONLY);
  void* p = nullptr;
  REQUIRE(hipMalloc(&p, 1 << 20) == hipSuccess);
  REQUIRE(hipFileRead(r.handle, p, 1 << 20, 0, 0) == (1 << 20));
  REQUIRE(hipFree(p) == hipSuccess);

  SECTION("allocated again smaller at the same address: bounded by the new allocation") {
    void* again = allocate_at(p, 64 * kKiB);
    if (again == nullptr) HIPFILE_SKIP("the runtime did not hand the freed address out again");
    // The remembered 1 MiB would let this read run 960 KiB past the new allocation.
    CHECK(hipFileRead(r.handle, again, 1 << 20, 0, 0) == -hipFileInvalidValue);
    CHECK(hipFileRead(r.handle, again, 64 * kKiB, 4096, 0) == static_cast<ssize_t>(64 * kKiB));
    CHECK(to_host(again, 64 * kKiB) == std::vector<std::byte>(file.begin() + 4096, file.begin() + 4096 + 64 * kKiB));
    REQUIRE(hipFree(again) == hipSuccess);
  }
  SECTION("allocated again on another device: the read lands there") {
    int count = 0;
    REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
    if (count < 2) HIPFILE_SKIP("one device: moving an allocation needs two");  // meson gives hip-cpu two
    REQUIRE(hipSetDevice(1) == hipSuccess);
    void* again = allocate_at(p, 1 << 20);
    REQUIRE(hipSetDevice(0) == hipSuccess);
    if (again == nullptr) HIPFILE_SKIP("the runtime did not hand the freed address out again");
    REQUIRE(hipcpuDeviceOf(again) == 1);
    hipcpuResetCallCounts();
    CHECK(hipFileRead(r.handle, again, 1 << 20, 0, 0) == (1 << 20));
    CHECK(hipcpuCallCount("hipPointerGetAttributes") == 1);  // asked afresh
    CHECK(to_host(again, 1 << 20) == file);
    REQUIRE(hipFree(again) == hipSuccess);
  }
}

TEST_CASE("More buffers in turn than a thread remembers: every read is right", "[recent]") {
  ClosedDriver guard;
  hipfile::gpu::forget_recent_pointers();
  constexpr std::size_t kBuffers = 6, kSize = 16 * kKiB;
  TempFile f(kBuffers * kSize * 3, 73);
  const auto file = pattern(kBuffers * kSize * 3, 73);
  Registered r(f.path(), O_RDONLY);
  std::vector<std::unique_ptr<DeviceMem>> mems;
  for (std::size_t i = 0; i < kBuffers; ++i) mems.push_back(std::make_unique<DeviceMem>(kSize));
  for (std::size_t round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < kBuffers; ++i) {
      const std::size_t at = (round * kBuffers + i) * kSize;
      REQUIRE(hipFileRead(r.handle, mems[i]->get(), kSize, static_cast<hoff_t>(at), 0) == static_cast<ssize_t>(kSize));
      CHECK(to_host(mems[i]->get(), kSize) == std::vector<std::byte>(file.begin() + at, file.begin() + at + kSize));
    }
  }
  // Two buffers in turn stay remembered once read: one question per read.
  for (int k = 0; k < 2; ++k) REQUIRE(hipFileRead(r.handle, mems[k]->get(), kSize, 0, 0) == static_cast<ssize_t>(kSize));
  hipcpuResetCallCounts();
  for (int k = 0; k < 4; ++k)
    REQUIRE(hipFileRead(r.handle, mems[k % 2]->get(), kSize, 0, 0) == static_cast<ssize_t>(kSize));
  CHECK(pointer_queries() == 4);
}

TEST_CASE("Each thread remembers its own allocations", "[recent]") {
  ClosedDriver guard;
  hipfile::gpu::forget_recent_pointers();
  TempFile f(64 * kKiB, 74);
  const auto file = pattern(64 * kKiB, 74);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(64 * kKiB);
  REQUIRE(hipFileRead(r.handle, mem.get(), 64 * kKiB, 0, 0) == static_cast<ssize_t>(64 * kKiB));
  hipcpuResetCallCounts();
  ssize_t n = 0;
  std::thread([&] { n = hipFileRead(r.handle, mem.get(), 64 * kKiB, 0, 0); }).join();
  CHECK(n == static_cast<ssize_t>(64 * kKiB));
  CHECK(hipcpuCallCount("hipPointerGetAttributes") == 1);  // a new thread asks in full
  CHECK(to_host(mem.get(), 64 * kKiB) == file);
}

#endif
