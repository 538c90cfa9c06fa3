// SPDX-License-Identifier: MIT
// Does the copy engine lose time between copies queued on different streams? Pinned host ->
// device copies of 1 GiB in pieces of 1-8 MiB, queued round-robin on 1, 2, 4, 12 or 16 streams
// (each stream its own pinned slot, like an engine lane), against one 1 GiB copy. The engine's
// workers each copy on their own stream, and the H200 runs their copies one at a time.
// Usage: copy_streams [PASSES]   (default 5, best kept)
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check_hip.hpp"

namespace {

constexpr std::size_t kTotal = std::size_t{1} << 30;

double pass(std::byte* host, std::byte* device, std::size_t piece, const std::vector<hipStream_t>& streams) {
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t at = 0, i = 0; at < kTotal; at += piece, ++i) {
    const std::size_t s = i % streams.size();
    CHECK_HIP(hipMemcpyAsync(device + at, host + s * piece, piece, hipMemcpyHostToDevice, streams[s]));
  }
  for (auto st : streams) CHECK_HIP(hipStreamSynchronize(st));
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(kTotal) / sec / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  const int passes = argc > 1 ? std::atoi(argv[1]) : 5;
  constexpr std::size_t kMaxStreams = 16;
  void* h = nullptr;
  void* d = nullptr;
  CHECK_HIP(hipHostMalloc(&h, kTotal, hipHostMallocDefault));  // room for 16 slots of 8 MiB or one 1 GiB copy
  CHECK_HIP(hipMalloc(&d, kTotal));
  std::vector<hipStream_t> all(kMaxStreams);
  for (auto& s : all) CHECK_HIP(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  auto* host = static_cast<std::byte*>(h);
  auto* dev = static_cast<std::byte*>(d);
  double whole = 0;
  for (int p = 0; p <= passes; ++p) whole = std::max(whole, pass(host, dev, kTotal, {all[0]}));
  std::printf("one 1 GiB copy: %.2f GB/s\n\n%-8s %-8s %8s %8s\n", whole, "piece", "streams", "GB/s", "vs one");
  for (std::size_t mib : {1, 2, 4, 8})
    for (std::size_t n : {1, 2, 4, 12, 16}) {
      const std::vector<hipStream_t> streams(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
      double best = 0;
      for (int p = 0; p <= passes; ++p) best = std::max(best, pass(host, dev, mib << 20, streams));  // pass 0 warms
      std::printf("%-8s %-8zu %8.2f %8.3f\n", (std::to_string(mib) + "M").c_str(), n, best, best / whole);
    }
  for (auto s : all) CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
  return 0;
}
