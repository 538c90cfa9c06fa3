// SPDX-License-Identifier: MIT
// Can the host feed the page-cache copies and the GPU's DMA at the same time? A staged read
// needs both: worker threads pread page-cache pages into pinned memory (CPU copies) while the
// copy engine reads pinned memory into the device. This measures, in one run, for ~1 s each:
//   pread:  THREADS threads preading CHUNK-sized pieces of a page-cache-hot FILE into their own
//           pinned buffers, round and round (the CPU-copy ceiling);
//   h2d:    pinned host→device copies of 256 MiB on one stream (the DMA ceiling);
//   both:   the two at once, independent of each other; their sum bounds any staged read.
// Usage: contention FILE [THREADS [CHUNK_MiB [SECONDS]]]   (defaults 16, 2, 1.0)
#include <hip/hip_runtime_api.h>

#include "check_hip.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Rates {
  double pread_gbps = 0, h2d_gbps = 0;
};

// Runs the selected loads for `seconds` and returns their rates (GB/s, 1e9 B/s).
Rates measure(bool do_pread, bool do_h2d, int fd, std::size_t file_size, int threads, std::size_t chunk,
              double seconds, const std::vector<void*>& host_bufs, void* h2d_src, void* dev, std::size_t h2d_block,
              hipStream_t stream) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> pread_bytes{0};
  std::vector<std::thread> pool;
  const auto t0 = Clock::now();
  if (do_pread)
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        std::uint64_t mine = 0;
        // Each thread starts at its own part of the file and wraps around.
        std::size_t pieces = file_size / chunk;
        std::size_t k = pieces * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
        while (!stop.load(std::memory_order_relaxed)) {
          ssize_t n = ::pread(fd, host_bufs[static_cast<std::size_t>(t)], chunk, static_cast<off_t>(k * chunk));
          if (n <= 0) break;
          mine += static_cast<std::uint64_t>(n);
          k = (k + 1) % pieces;
        }
        pread_bytes += mine;
      });
  std::uint64_t h2d_bytes = 0;
  if (do_h2d) {
    // Keep two copies queued so the copy engine never idles while the host checks the time.
    CHECK_HIP(hipMemcpyAsync(dev, h2d_src, h2d_block, hipMemcpyHostToDevice, stream));
    while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
      CHECK_HIP(hipMemcpyAsync(dev, h2d_src, h2d_block, hipMemcpyHostToDevice, stream));
      CHECK_HIP(hipStreamSynchronize(stream));
      h2d_bytes += 2 * h2d_block;
      CHECK_HIP(hipMemcpyAsync(dev, h2d_src, h2d_block, hipMemcpyHostToDevice, stream));
    }
    CHECK_HIP(hipStreamSynchronize(stream));
    h2d_bytes += h2d_block;
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
  stop = true;
  for (auto& th : pool) th.join();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return Rates{static_cast<double>(pread_bytes.load()) / s / 1e9, static_cast<double>(h2d_bytes) / s / 1e9};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [THREADS [CHUNK_MiB [SECONDS]]]\n", argv[0]);
    return 2;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 16;
  const std::size_t chunk = (argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 2) << 20;
  const double seconds = argc > 4 ? std::atof(argv[4]) : 1.0;
  int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || static_cast<std::size_t>(st.st_size) < chunk || threads < 1) {
    std::perror(argv[1]);
    return 1;
  }
  const auto file_size = static_cast<std::size_t>(st.st_size);

  std::vector<void*> bufs(static_cast<std::size_t>(threads));
  for (auto& b : bufs) CHECK_HIP(hipHostMalloc(&b, chunk, 0));
  const std::size_t block = 256u << 20;
  void* src = nullptr;
  void* dev = nullptr;
  CHECK_HIP(hipHostMalloc(&src, block, 0));
  CHECK_HIP(hipMalloc(&dev, block));
  hipStream_t stream;
  CHECK_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  // Warm-up: fault in the buffers and the DMA path.
  (void)measure(true, true, fd, file_size, threads, chunk, 0.2, bufs, src, dev, block, stream);

  Rates p = measure(true, false, fd, file_size, threads, chunk, seconds, bufs, src, dev, block, stream);
  Rates h = measure(false, true, fd, file_size, threads, chunk, seconds, bufs, src, dev, block, stream);
  Rates b = measure(true, true, fd, file_size, threads, chunk, seconds, bufs, src, dev, block, stream);
  std::printf("contention: %d pread threads, %zu MiB pieces, %.1f s per measurement (GB/s = 1e9 B/s)\n", threads,
              chunk >> 20, seconds);
  std::printf("  pread alone            %7.2f GB/s\n", p.pread_gbps);
  std::printf("  pinned h2d alone       %7.2f GB/s\n", h.h2d_gbps);
  std::printf("  both at once: pread    %7.2f GB/s, h2d %7.2f GB/s\n", b.pread_gbps, b.h2d_gbps);
  std::printf("  a staged read moves each byte through both, so it is bound by min(pread, h2d) at once\n");

  for (auto& x : bufs) CHECK_HIP(hipHostFree(x));
  CHECK_HIP(hipHostFree(src));
  CHECK_HIP(hipFree(dev));
  CHECK_HIP(hipStreamDestroy(stream));
  ::close(fd);
  return 0;
}
