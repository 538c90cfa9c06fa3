// SPDX-License-Identifier: MIT
// HIPFILE_MAX_PINNED_MEMORY is a bound: however many threads read at once, the engine's pinned
// staging (workers' lanes and the lanes of requests run on callers' threads) stays under it.
// hip-cpu counts every hipHostMalloc byte, so the peak is measured, not estimated (on the GPU
// platforms there is no such count, and no case).
#include <fcntl.h>

#include <hip/hip_runtime_api.h>  // defines __HIP_PLATFORM_CPU__ on hip-cpu

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "../c_api/helpers.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

std::size_t pinned_live_now() {
  (void)hipcpuPeakHostBytes(1);
  return hipcpuPeakHostBytes(1);  // just reset to what is live, with nothing allocated since
}

}  // namespace

TEST_CASE("96 threads of small reads and 4 of large ones stay under a 64 MiB pinned limit", "[pinned][budget]") {
  ClosedDriver guard;
  const std::size_t limit = 64 * kMiB;
  REQUIRE(hipFileDriverSetMaxPinnedMemSize(limit / 1024).err == hipFileSuccess);  // staged: KiB
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const std::size_t n = 16 * kMiB;
  TempFile f(n, 91);
  Registered r(f.path(), O_RDONLY);
  const std::vector<std::byte> want = pattern(n, 91);
  const std::size_t before = pinned_live_now();

  std::atomic<int> bad{0};
  auto small_reader = [&](unsigned seed) {
    DeviceMem mem(kMiB);
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 12; ++i) {
      const std::size_t size = std::size_t{4096} << (rng() % 9);  // 4 KiB .. 1 MiB
      const std::size_t at = rng() % (n - size);
      if (hipFileRead(r.handle, mem.get(), size, static_cast<hoff_t>(at), 0) != static_cast<ssize_t>(size) ||
          to_host(mem.get(), size) != std::vector<std::byte>(want.begin() + at, want.begin() + at + size))
        ++bad;
    }
  };
  auto large_reader = [&] {
    DeviceMem mem(n);
    for (int i = 0; i < 2; ++i)
      if (hipFileRead(r.handle, mem.get(), n, 0, 0) != static_cast<ssize_t>(n) || to_host(mem.get(), n) != want) ++bad;
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 96; ++t) threads.emplace_back(small_reader, t);
  for (int t = 0; t < 4; ++t) threads.emplace_back(large_reader);
  for (auto& t : threads) t.join();
  CHECK(bad == 0);
  const std::size_t peak = hipcpuPeakHostBytes(0);
  CAPTURE(before, peak);
  CHECK(peak - before <= limit);
  hipFileHandleDeregister(r.handle);
  r.handle = nullptr;
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(pinned_live_now() <= before);  // the close gives it all back
}
#endif
