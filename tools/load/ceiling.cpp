// SPDX-License-Identifier: MIT
#include "ceiling.hpp"

#include "args.hpp"
#include "errors.hpp"
#include "stopwatch.hpp"

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <fmt/format.h>

namespace hipfile::tools::load {

namespace {

// 64 MiB copies run at the rate of larger ones; pinning the block is most of what the ceiling
// costs the process, so it is no larger.
constexpr std::size_t kBlock = std::size_t{64} << 20;
constexpr int kBlocks = 8;

struct Buffers {
  void* host = nullptr;
  void* device = nullptr;
  ~Buffers() {
    if (device) (void)hipFree(device);
    if (host) (void)hipHostFree(host);
  }
};

double one_device(int device) {
  check_hip(hipSetDevice(device), fmt::format("hipSetDevice({})", device));
  Buffers b;
  check_hip(hipHostMalloc(&b.host, kBlock, hipHostMallocDefault), "hipHostMalloc for the copy ceiling");
  check_hip(hipMalloc(&b.device, kBlock), fmt::format("hipMalloc for the copy ceiling on GPU {}", device));
  check_hip(hipMemset(b.device, 0, kBlock), "hipMemset");
  check_hip(hipMemcpy(b.device, b.host, kBlock, hipMemcpyHostToDevice), "hipMemcpy (warm-up)");
  Stopwatch clock;
  for (int i = 0; i < kBlocks; ++i)
    check_hip(hipMemcpy(b.device, b.host, kBlock, hipMemcpyHostToDevice), "hipMemcpy host to device");
  return gbps(kBlock * kBlocks, clock.seconds());
}

}  // namespace

double pinned_h2d_gbps(const std::vector<int>& devices) {
  double sum = 0;
  for (int d : devices) sum += one_device(d);
  (void)hipSetDevice(devices.front());
  return sum;
}

}  // namespace hipfile::tools::load
