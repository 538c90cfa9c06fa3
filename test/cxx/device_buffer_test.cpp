// SPDX-License-Identifier: MIT
// hipfile::DeviceBuffer: owned hipMalloc memory, checked against the runtime's real state.
#include "catch.hpp"

#include <hipfile++/device_buffer.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "test_support.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>
#endif

using hipfile::DeviceBuffer;
namespace t = hipfile::test;

static_assert(!std::is_copy_constructible_v<DeviceBuffer>);
static_assert(!std::is_copy_assignable_v<DeviceBuffer>);
static_assert(std::is_nothrow_move_constructible_v<DeviceBuffer>);
static_assert(std::is_nothrow_move_assignable_v<DeviceBuffer>);
static_assert(std::is_nothrow_default_constructible_v<DeviceBuffer>);
static_assert(std::is_nothrow_destructible_v<DeviceBuffer>);

namespace {

int current_device() {
  int d = -1;
  REQUIRE(hipGetDevice(&d) == hipSuccess);
  return d;
}

int device_count() {
  int n = 0;
  REQUIRE(hipGetDeviceCount(&n) == hipSuccess);
  return n;
}

// Live hipMalloc allocations on a device where the runtime can tell (hip-cpu); -1 elsewhere.
long long live(int dev) {
#ifdef __HIP_PLATFORM_CPU__
  return static_cast<long long>(hipcpuLiveDeviceAllocations(dev));
#else
  (void)dev;
  return -1;
#endif
}

}  // namespace

TEST_CASE("A default DeviceBuffer is empty", "[device_buffer]") {
  DeviceBuffer b;
  CHECK_FALSE(b);
  CHECK(b.data() == nullptr);
  CHECK(b.size() == 0);
  CHECK(b.device() == -1);
  CHECK(b.bytes().empty());
  CHECK(b.as<float>().empty());
  CHECK(b.release() == nullptr);
}

TEST_CASE("DeviceBuffer::allocate owns device memory that holds bytes", "[device_buffer]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  {
    auto b = DeviceBuffer::allocate(10000);
    REQUIRE(b.has_value());
    CHECK(*b);
    CHECK(b->size() == 10000);
    CHECK(b->device() == dev);
    CHECK(b->bytes().data() == static_cast<std::byte*>(b->data()));
    CHECK(b->bytes().size() == 10000);
    CHECK(b->as<std::uint32_t>().size() == 2500);
    CHECK(b->as<double>().size() == 1250);
    CHECK(static_cast<const DeviceBuffer&>(*b).as<std::uint16_t>().size() == 5000);

    hipPointerAttribute_t attr{};
    REQUIRE(hipPointerGetAttributes(&attr, b->data()) == hipSuccess);
    CHECK(attr.device == dev);

    const auto bytes = t::pattern(10000, 7);
    t::to_device(b->data(), bytes);
    CHECK(t::to_host(b->data(), 10000) == bytes);
#ifdef __HIP_PLATFORM_CPU__
    CHECK(live(dev) == live0 + 1);
#endif
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);  // the destructor freed it
#endif
}

TEST_CASE("A moved-from DeviceBuffer frees nothing", "[device_buffer]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  auto a = DeviceBuffer::allocate(4096);
  REQUIRE(a.has_value());
  void* p = a->data();
  t::to_device(p, t::pattern(4096, 3));
  {
    DeviceBuffer b(std::move(*a));
    CHECK_FALSE(*a);
    CHECK(a->size() == 0);
    CHECK(b.data() == p);
    CHECK(b.size() == 4096);
    a->reset();  // nothing to free
    CHECK(t::to_host(b.data(), 4096) == t::pattern(4096, 3));
#ifdef __HIP_PLATFORM_CPU__
    CHECK(live(dev) == live0 + 1);
#endif
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
}

TEST_CASE("DeviceBuffer move-assignment frees the old memory now", "[device_buffer]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  auto a = DeviceBuffer::allocate(4096);
  auto b = DeviceBuffer::allocate(8192);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  void* pb = b->data();
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0 + 2);
#endif
  *a = std::move(*b);
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0 + 1);
#endif
  CHECK(a->data() == pb);
  CHECK(a->size() == 8192);
  CHECK_FALSE(*b);
  *a = DeviceBuffer();
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
  CHECK_FALSE(*a);
}

TEST_CASE("DeviceBuffer::release hands the memory to the caller", "[device_buffer]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  void* p = nullptr;
  {
    auto b = DeviceBuffer::allocate(4096);
    REQUIRE(b.has_value());
    p = b->release();
    CHECK_FALSE(*b);
    CHECK(b->size() == 0);
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0 + 1);  // still allocated: the caller owns it
#endif
  {
    auto again = DeviceBuffer::adopt(p, 4096, dev);  // and may hand it back
    CHECK(again.data() == p);
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
}

TEST_CASE("DeviceBuffer::free reports hipFree's status and empties the buffer", "[device_buffer]") {
  auto b = DeviceBuffer::allocate(4096);
  REQUIRE(b.has_value());
  CHECK(b->free().has_value());
  CHECK_FALSE(*b);
  CHECK(b->free().has_value());  // nothing left to free
}

TEST_CASE("DeviceBuffer::allocate of zero bytes gives an empty buffer", "[device_buffer]") {
  auto b = DeviceBuffer::allocate(0);
  REQUIRE(b.has_value());
  CHECK_FALSE(*b);
  CHECK(b->bytes().empty());
}

TEST_CASE("DeviceBuffer::allocate failures return the HIP error and keep the current device", "[device_buffer]") {
  const int dev = current_device();
  SECTION("out of memory") {
    auto b = DeviceBuffer::allocate(std::size_t{1} << 62);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().op() == hipFileHipDriverError);
    CHECK(b.error() == hipfile::Error::from_hip(hipErrorOutOfMemory));
  }
  SECTION("no such device") {
    auto b = DeviceBuffer::allocate(4096, device_count() + 3);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error() == hipfile::Error::from_hip(hipErrorInvalidDevice));
  }
  CHECK(current_device() == dev);
}

TEST_CASE("DeviceBuffer::allocate on another device restores the caller's device", "[device_buffer][environment]") {
  if (device_count() < 2) HIPFILE_SKIP("one device: allocating on another device needs two");
  REQUIRE(hipSetDevice(0) == hipSuccess);
  [[maybe_unused]] const auto live1 = live(1);
  {
    auto b = DeviceBuffer::allocate(4096, 1);
    REQUIRE(b.has_value());
    CHECK(b->device() == 1);
    CHECK(current_device() == 0);
    hipPointerAttribute_t attr{};
    REQUIRE(hipPointerGetAttributes(&attr, b->data()) == hipSuccess);
    CHECK(attr.device == 1);
#ifdef __HIP_PLATFORM_CPU__
    CHECK(live(1) == live1 + 1);
#endif
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(1) == live1);
#endif
}

#ifdef __HIP_PLATFORM_CPU__
TEST_CASE("DeviceBuffer::allocate reports injected HIP failures and leaks nothing", "[device_buffer]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  SECTION("hipMalloc fails") {
    hipcpuInjectFault("hipMalloc", 1, 1, hipErrorOutOfMemory);
    auto b = DeviceBuffer::allocate(4096);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error() == hipfile::Error::from_hip(hipErrorOutOfMemory));
  }
  SECTION("hipGetDevice fails") {
    hipcpuInjectFault("hipGetDevice", 1, 1, hipErrorNotInitialized);
    auto b = DeviceBuffer::allocate(4096);
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error() == hipfile::Error::from_hip(hipErrorNotInitialized));
  }
  SECTION("hipMalloc fails on another device: the caller's device is still restored") {
    if (device_count() >= 2) {
      REQUIRE(hipSetDevice(0) == hipSuccess);
      hipcpuInjectFault("hipMalloc", 1, 1, hipErrorOutOfMemory);
      auto b = DeviceBuffer::allocate(4096, 1);
      REQUIRE_FALSE(b.has_value());
      CHECK(b.error() == hipfile::Error::from_hip(hipErrorOutOfMemory));
      CHECK(current_device() == 0);
      CHECK(live(1) == 0);
    }
  }
  hipcpuClearFaults();
  CHECK(live(dev) == live0);
  CHECK(current_device() == dev);
}

TEST_CASE("DeviceBuffer::free reports a failing hipFree", "[device_buffer]") {
  const int dev = current_device();
  auto b = DeviceBuffer::allocate(4096);
  REQUIRE(b.has_value());
  void* p = b->data();
  hipcpuInjectFault("hipFree", 1, 1, hipErrorInvalidValue);
  auto r = b->free();
  hipcpuClearFaults();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error() == hipfile::Error::from_hip(hipErrorInvalidValue));
  CHECK_FALSE(*b);
  // The injected failure freed nothing; give the memory back for real.
  CHECK(hipcpuDeviceOf(p) == dev);
  CHECK(hipFree(p) == hipSuccess);
}
#endif
