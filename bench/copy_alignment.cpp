// SPDX-License-Identifier: MIT
// Does the copy engine care how host and device addresses are aligned? Pinned host -> device
// copies of 4 MiB pieces (the engine's chunk) on 16 streams, 1 GiB per pass, with the host and
// the device address each offset from a 4 KiB-aligned base. A checkpoint's data section starts
// at 8 + header length, so a read of it lands at device addresses that are not 256-byte aligned.
// Usage: copy_alignment [PASSES]   (default 5, best kept)
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check_hip.hpp"

namespace {

constexpr std::size_t kPiece = std::size_t{4} << 20, kPieces = 256, kStreams = 16, kSlack = 8192;

double pass(std::byte* host, std::byte* device, std::size_t host_off, std::size_t dev_off,
            const std::vector<hipStream_t>& streams) {
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < kPieces; ++i) {
    const std::size_t s = i % kStreams;
    // Each stream has its own host slot (like an engine lane) and its own device range.
    CHECK_HIP(hipMemcpyAsync(device + i * (kPiece + kSlack) + dev_off, host + s * (kPiece + kSlack) + host_off, kPiece,
                             hipMemcpyHostToDevice, streams[s]));
  }
  for (auto st : streams) CHECK_HIP(hipStreamSynchronize(st));
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(kPiece * kPieces) / sec / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int passes = argc > 1 ? std::atoi(argv[1]) : 5;
  void* h = nullptr;
  void* d = nullptr;
  CHECK_HIP(hipHostMalloc(&h, kStreams * (kPiece + kSlack), hipHostMallocDefault));
  CHECK_HIP(hipMalloc(&d, kPieces * (kPiece + kSlack)));
  std::vector<hipStream_t> streams(kStreams);
  for (auto& s : streams) CHECK_HIP(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  struct Case {
    std::size_t host, dev;
  };
  const Case cases[] = {{0, 0}, {0, 8}, {8, 8}, {0, 64}, {0, 256}, {0, 4088}, {4088, 4088}, {256, 0}};
  (void)pass(static_cast<std::byte*>(h), static_cast<std::byte*>(d), 0, 0, streams);  // warm up
  double base = 0;
  std::printf("%-10s %-10s %10s %8s\n", "host+", "device+", "GB/s", "vs 0/0");
  for (const Case& c : cases) {
    double best = 0;
    for (int p = 0; p < passes; ++p)
      best = std::max(best, pass(static_cast<std::byte*>(h), static_cast<std::byte*>(d), c.host, c.dev, streams));
    if (base == 0) base = best;
    std::printf("%-10zu %-10zu %10.2f %8.3f\n", c.host, c.dev, best, best / base);
  }
  for (auto s : streams) CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
  return 0;
}
