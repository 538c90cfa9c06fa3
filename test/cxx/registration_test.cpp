// SPDX-License-Identifier: MIT
// hipfile::Registration and RegisteredBuffer, checked against the library's real registrations.
#include "catch.hpp"

#include <hipfile++/registration.hpp>

#include <type_traits>
#include <utility>
#include <vector>

#include "test_support.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>
#endif

using hipfile::DeviceBuffer;
using hipfile::Error;
using hipfile::RegisteredBuffer;
using hipfile::Registration;
namespace t = hipfile::test;

static_assert(!std::is_copy_constructible_v<Registration>);
static_assert(!std::is_copy_assignable_v<Registration>);
static_assert(std::is_nothrow_move_constructible_v<Registration>);
static_assert(std::is_nothrow_move_assignable_v<Registration>);
static_assert(std::is_nothrow_default_constructible_v<Registration>);
static_assert(std::is_nothrow_destructible_v<Registration>);
static_assert(sizeof(Registration) == 2 * sizeof(void*));

static_assert(!std::is_copy_constructible_v<RegisteredBuffer>);
static_assert(!std::is_copy_assignable_v<RegisteredBuffer>);
static_assert(std::is_nothrow_move_constructible_v<RegisteredBuffer>);
static_assert(std::is_nothrow_move_assignable_v<RegisteredBuffer>);
static_assert(std::is_nothrow_default_constructible_v<RegisteredBuffer>);
static_assert(std::is_nothrow_destructible_v<RegisteredBuffer>);

namespace {

// The library's own answer: deregistering a base that is not registered says so. Only call
// it where the answer is expected to be "not registered" (it would deregister otherwise).
bool not_registered(const void* base) {
  return hipFileBufDeregister(base).err == hipFileMemoryNotRegistered;
}
// Registered right now: registering it again is refused as a duplicate.
bool registered(const void* base, std::size_t n) {
  const hipFileError_t s = hipFileBufRegister(base, n, 0);
  if (s.err == hipFileSuccess) (void)hipFileBufDeregister(base);  // undo: it was not registered
  return s.err == hipFileMemoryAlreadyRegistered;
}

long long live(int dev) {
#ifdef __HIP_PLATFORM_CPU__
  return static_cast<long long>(hipcpuLiveDeviceAllocations(dev));
#else
  (void)dev;
  return -1;
#endif
}

int current_device() {
  int d = -1;
  REQUIRE(hipGetDevice(&d) == hipSuccess);
  return d;
}

}  // namespace

TEST_CASE("A default Registration is empty", "[registration]") {
  Registration r;
  CHECK_FALSE(r);
  CHECK(r.base() == nullptr);
  CHECK(r.size() == 0);
  CHECK(r.region().empty());
  CHECK(r.release() == nullptr);
  CHECK(r.deregister().has_value());
}

TEST_CASE("Registration registers device memory and destruction deregisters it", "[registration]") {
  t::DeviceMem mem(1 << 20);
  {
    auto r = Registration::create(std::span<const std::byte>(mem.bytes(), mem.size()));
    REQUIRE(r.has_value());
    CHECK(*r);
    CHECK(r->base() == mem.get());
    CHECK(r->size() == mem.size());
    CHECK(r->region().data() == mem.bytes());
    CHECK(registered(mem.get(), mem.size()));

    // A second registration of the same base is refused with the C error.
    auto twice = Registration::create(std::span<const std::byte>(mem.bytes(), 4096));
    REQUIRE_FALSE(twice.has_value());
    CHECK(twice.error() == Error::from_op(hipFileMemoryAlreadyRegistered));
  }
  CHECK(not_registered(mem.get()));
}

TEST_CASE("Registration::create takes typed spans", "[registration]") {
  t::DeviceMem mem(4096);
  std::span<float> floats(static_cast<float*>(mem.get()), 1024);
  auto r = Registration::create(floats);
  REQUIRE(r.has_value());
  CHECK(r->size() == 4096);
}

TEST_CASE("Registration works on host memory too", "[registration]") {
  std::vector<std::byte> host(8192);
  {
    auto r = Registration::create(std::span<const std::byte>(host));
    REQUIRE(r.has_value());
    CHECK(registered(host.data(), host.size()));
  }
  CHECK(not_registered(host.data()));
}

TEST_CASE("A moved-from Registration deregisters nothing", "[registration]") {
  t::DeviceMem mem(8192);
  auto a = Registration::create(std::span<const std::byte>(mem.bytes(), mem.size()));
  REQUIRE(a.has_value());
  {
    Registration b(std::move(*a));
    CHECK_FALSE(*a);
    CHECK(b.base() == mem.get());
    a->reset();  // nothing to deregister
    CHECK(registered(mem.get(), mem.size()));
  }
  CHECK(not_registered(mem.get()));
}

TEST_CASE("Registration move-assignment deregisters the old region now", "[registration]") {
  t::DeviceMem m1(4096), m2(4096);
  auto a = Registration::create(std::span<const std::byte>(m1.bytes(), m1.size()));
  auto b = Registration::create(std::span<const std::byte>(m2.bytes(), m2.size()));
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  *a = std::move(*b);
  CHECK(not_registered(m1.get()));
  CHECK(a->base() == m2.get());
  CHECK_FALSE(*b);
  CHECK(registered(m2.get(), m2.size()));
  *a = Registration();
  CHECK(not_registered(m2.get()));
}

TEST_CASE("Registration::release leaves the region registered for the caller", "[registration]") {
  t::DeviceMem mem(4096);
  const void* base = nullptr;
  {
    auto r = Registration::create(std::span<const std::byte>(mem.bytes(), mem.size()));
    REQUIRE(r.has_value());
    base = r->release();
    CHECK_FALSE(*r);
  }
  CHECK(base == mem.get());
  CHECK(hipfile::check(hipFileBufDeregister(base)).has_value());  // the caller's job now
}

TEST_CASE("Registration::deregister reports the C status", "[registration]") {
  t::DeviceMem mem(4096);
  auto r = Registration::create(std::span<const std::byte>(mem.bytes(), mem.size()));
  REQUIRE(r.has_value());
  CHECK(r->deregister().has_value());
  CHECK_FALSE(*r);
  CHECK(not_registered(mem.get()));

  // Adopting something that is not registered: deregistering it reports MemoryNotRegistered.
  auto stray = Registration::adopt(mem.get(), mem.size());
  auto e = stray.deregister();
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error() == Error::from_op(hipFileMemoryNotRegistered));
}

TEST_CASE("Registration::create failures return the C error", "[registration]") {
  SECTION("null base") {
    auto r = Registration::create(std::span<const std::byte>());
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_op(hipFileInvalidValue));
  }
  SECTION("a length past the end of the allocation") {
    t::DeviceMem mem(4096);
    auto r = Registration::create(std::span<const std::byte>(mem.bytes(), 8192));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().op() == hipFileHipPointerRangeError);
  }
}

TEST_CASE("Registration::contains accepts exactly the subspans of the region", "[registration]") {
  t::DeviceMem mem(8192);
  auto r = Registration::create(std::span<const std::byte>(mem.bytes() + 4096, 4096));
  REQUIRE(r.has_value());
  const std::byte* b = mem.bytes();
  CHECK(r->contains({b + 4096, 4096}));
  CHECK(r->contains({b + 4096, 0}));
  CHECK(r->contains({b + 5000, 100}));
  CHECK(r->contains({b + 8192, 0}));
  CHECK_FALSE(r->contains({b + 4095, 1}));
  CHECK_FALSE(r->contains({b + 4096, 4097}));
  CHECK_FALSE(r->contains({b + 8191, 2}));
  CHECK_FALSE(r->contains({b, 100}));
  CHECK(r->offset_of({b + 5000, 1}) == 904);
  CHECK_FALSE(Registration().contains({b, 0}));
}

TEST_CASE("make_registered_buffer allocates and registers; destruction deregisters then frees",
          "[registration]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  const void* base = nullptr;
  {
    auto rb = hipfile::make_registered_buffer(1 << 16);
    REQUIRE(rb.has_value());
    CHECK(*rb);
    CHECK(rb->size() == (1u << 16));
    CHECK(rb->buffer.device() == dev);
    CHECK(rb->registration.base() == rb->buffer.data());
    CHECK(rb->registration.size() == rb->buffer.size());
    CHECK(rb->bytes().data() == rb->buffer.bytes().data());
    base = rb->buffer.data();
    CHECK(registered(base, rb->size()));
#ifdef __HIP_PLATFORM_CPU__
    CHECK(live(dev) == live0 + 1);
#endif
  }
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
  // The address is free again; what matters is that the library forgot it.
  CHECK(not_registered(base));
}

TEST_CASE("RegisteredBuffer move-assignment releases the old pair now, in order", "[registration]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  auto a = hipfile::make_registered_buffer(4096);
  auto b = hipfile::make_registered_buffer(4096);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  const void* old_base = a->buffer.data();
  const void* new_base = b->buffer.data();
  *a = std::move(*b);
  CHECK(not_registered(old_base));
  CHECK(a->buffer.data() == new_base);
  CHECK(a->registration.base() == new_base);
  CHECK_FALSE(*b);
  CHECK_FALSE(b->registration);
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0 + 1);
#endif
  RegisteredBuffer c(std::move(*a));
  CHECK_FALSE(*a);
  CHECK(registered(new_base, 4096));
  c.reset();
  CHECK_FALSE(c);
  CHECK(not_registered(new_base));
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
}

TEST_CASE("make_registered_buffer failures return the error and leak nothing", "[registration]") {
  const int dev = current_device();
  [[maybe_unused]] const auto live0 = live(dev);
  auto zero = hipfile::make_registered_buffer(0);
  REQUIRE_FALSE(zero.has_value());
  CHECK(zero.error() == Error::from_op(hipFileInvalidValue));
  auto huge = hipfile::make_registered_buffer(std::size_t{1} << 62);
  REQUIRE_FALSE(huge.has_value());
  CHECK(huge.error() == Error::from_hip(hipErrorOutOfMemory));
#ifdef __HIP_PLATFORM_CPU__
  CHECK(live(dev) == live0);
#endif
}
