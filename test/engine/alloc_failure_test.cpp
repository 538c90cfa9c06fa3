// SPDX-License-Identifier: MIT
// An allocation that fails on an engine worker (std::bad_alloc making its staging lane) fails
// that request with hipFileInternalError and nothing else: no std::terminate, no byte moved,
// and the next request, with memory back, works. The test binary's operator new fails the
// allocations of one size, a Lane's, while armed.
#include <atomic>
#include <cstdlib>
#include <new>

#include "../c_api/helpers.hpp"
#include "staging/lanes.hpp"

using namespace hipfile::test;

namespace {
std::atomic<bool> g_fail_lanes{false};
std::atomic<int> g_failed{0};
}  // namespace

void* operator new(std::size_t n) {
  if (n == sizeof(hipfile::engine::Lane) && g_fail_lanes.load()) {
    g_failed.fetch_add(1);
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// Every other form that pairs with the deletes below goes to malloc too: a nothrow new left to the
// runtime (Catch uses one) and freed here is an alloc-dealloc mismatch under ASan.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n == 0 ? 1 : n); }
void* operator new[](std::size_t n) { return ::operator new(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n == 0 ? 1 : n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

TEST_CASE("bad_alloc making a worker's lane fails the request, and the engine recovers", "[alloc]") {
  ClosedDriver guard;
  const std::size_t n = 8u << 20;  // above the inline threshold: the workers run it
  TempFile f(n, 81);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  const auto before = std::vector<std::byte>(n, std::byte{0x5a});
  to_device(mem.get(), before);
  g_fail_lanes = true;
  const ssize_t got = hipFileRead(r.handle, mem.get(), n, 0, 0);
  g_fail_lanes = false;
  CHECK(g_failed.load() > 0);  // the failure was really injected on a worker
  CHECK(got == -hipFileInternalError);
  CHECK(to_host(mem.get(), n) == before);  // nothing moved
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 81));
}

TEST_CASE("bad_alloc making a caller's lane gives its place back: inline requests never wait for ever",
          "[alloc]") {
  ClosedDriver guard;
  const std::size_t n = 4096;  // inline: a lane from the caller's pool
  TempFile f(n, 82);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  // Many more failures than the pool has lanes (at most 16 per pool): each one that kept its
  // count would shrink the pool for good, and the read after them would wait for a lane.
  constexpr int kFailures = 64;
  g_failed = 0;
  g_fail_lanes = true;
  int refused = 0;
  for (int i = 0; i < kFailures; ++i) refused += hipFileRead(r.handle, mem.get(), n, 0, 0) == -hipFileInternalError;
  g_fail_lanes = false;
  CHECK(g_failed.load() == kFailures);
  CHECK(refused == kFailures);
  ::alarm(60);  // a pool that lost its lanes waits for ever: the alarm ends the process, a failure
  const ssize_t got = hipFileRead(r.handle, mem.get(), n, 0, 0);
  ::alarm(0);
  REQUIRE(got == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 82));
}
