// SPDX-License-Identifier: MIT
// One thread, page-cache-hot file into device memory, three ways, measured in one run:
//   staged:   pread into pinned memory, then an async host-to-device copy (what the engine does
//             per worker; bound by the CPU's page-cache copy, ~6 GB/s per thread);
//   register: mmap the file, pin the page-cache pages in chunks with hipHostRegister(ReadOnly),
//             and let the copy engine read them directly — no CPU copy at all;
//   pinned:   the pinned host-to-device copy ceiling.
// Usage: mmap_register_bw FILE [CHUNK_MiB...]   (the file should be in the page cache)
#include <hip/hip_runtime_api.h>

#include "check_hip.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// HIP's and CUDA's value for read-only registration; not every HIP header names it.
constexpr unsigned kRegisterReadOnly = 0x8;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [CHUNK_MiB...]\n", argv[0]);
    return 2;
  }
  int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size == 0) {
    std::perror(argv[1]);
    return 1;
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  std::vector<std::size_t> chunks;
  for (int i = 2; i < argc; ++i) chunks.push_back(std::strtoull(argv[i], nullptr, 10) << 20);
  if (chunks.empty()) chunks = {16u << 20, 64u << 20, 256u << 20, 1u << 30};

  void* dev = nullptr;
  CHECK_HIP(hipMalloc(&dev, size));
  hipStream_t stream;
  CHECK_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  auto* d = static_cast<char*>(dev);

  // Pinned ceiling with 256 MiB blocks.
  {
    const std::size_t blk = 256u << 20;
    void* pinned = nullptr;
    CHECK_HIP(hipHostMalloc(&pinned, blk, 0));
    CHECK_HIP(hipMemcpy(d, pinned, blk, hipMemcpyHostToDevice));
    double t0 = now();
    for (std::size_t off = 0; off + blk <= size; off += blk)
      CHECK_HIP(hipMemcpyAsync(d + off, pinned, blk, hipMemcpyHostToDevice, stream));
    CHECK_HIP(hipStreamSynchronize(stream));
    double t = now() - t0;
    std::printf("pinned  ceiling            %7.2f GB/s\n", double(size / blk * blk) / t / 1e9);
    CHECK_HIP(hipHostFree(pinned));
  }

  // Staged, one thread, two 4 MiB slots: the engine's per-worker loop.
  {
    const std::size_t slot = 4u << 20;
    void* pinned[2];
    hipEvent_t done[2];
    for (int i = 0; i < 2; ++i) {
      CHECK_HIP(hipHostMalloc(&pinned[i], slot, 0));
      CHECK_HIP(hipEventCreateWithFlags(&done[i], hipEventDisableTiming));
    }
    double t0 = now();
    int k = 0;
    for (std::size_t off = 0; off < size; off += slot, k ^= 1) {
      CHECK_HIP(hipEventSynchronize(done[k]));
      std::size_t n = std::min(slot, size - off);
      if (::pread(fd, pinned[k], n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) return 1;
      CHECK_HIP(hipMemcpyAsync(d + off, pinned[k], n, hipMemcpyHostToDevice, stream));
      CHECK_HIP(hipEventRecord(done[k], stream));
    }
    CHECK_HIP(hipStreamSynchronize(stream));
    std::printf("staged  1 thread, 4 MiB    %7.2f GB/s\n", double(size) / (now() - t0) / 1e9);
    for (int i = 0; i < 2; ++i) {
      (void)hipEventDestroy(done[i]);
      (void)hipHostFree(pinned[i]);
    }
  }

  // Register page-cache pages and copy from them; chunk k+1 is pinned while chunk k copies.
  for (std::size_t chunk : chunks) {
    double t0 = now();
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
      std::perror("mmap");
      return 1;
    }
    auto* m = static_cast<char*>(map);
    hipEvent_t done;
    CHECK_HIP(hipEventCreateWithFlags(&done, hipEventDisableTiming));
    std::size_t prev_off = 0, prev_len = 0;
    bool ok = true;
    for (std::size_t off = 0; off < size && ok; off += chunk) {
      std::size_t n = std::min(chunk, size - off);
      hipError_t e = hipHostRegister(m + off, n, kRegisterReadOnly);
      if (e != hipSuccess) {
        std::printf("register %4zu MiB chunks: hipHostRegister failed: %s\n", chunk >> 20, hipGetErrorName(e));
        ok = false;
        break;
      }
      CHECK_HIP(hipMemcpyAsync(d + off, m + off, n, hipMemcpyHostToDevice, stream));
      if (prev_len) {  // the previous chunk's copy was queued earlier; it is done when this waits
        CHECK_HIP(hipEventSynchronize(done));
        CHECK_HIP(hipHostUnregister(m + prev_off));
      }
      CHECK_HIP(hipEventRecord(done, stream));
      prev_off = off;
      prev_len = n;
    }
    CHECK_HIP(hipStreamSynchronize(stream));
    if (ok && prev_len) CHECK_HIP(hipHostUnregister(m + prev_off));
    double t = now() - t0;
    ::munmap(map, size);
    (void)hipEventDestroy(done);
    if (ok) std::printf("register %4zu MiB chunks    %7.2f GB/s (mmap, pin, copy, unpin)\n", chunk >> 20,
                        double(size) / t / 1e9);
  }
  (void)hipFree(dev);
  ::close(fd);
  return 0;
}
