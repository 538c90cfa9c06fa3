// SPDX-License-Identifier: MIT
// What making pinned staging costs, by way of allocating it: hipHostMalloc against anonymous
// memory (transparent huge pages asked for or not) touched and then pinned with hipHostRegister,
// from one thread and from twelve at once (as the engine's workers make their lanes):
//   pinned_alloc [MiB per buffer, default 4]
#include <hip/hip_runtime_api.h>
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  int way = 0;
};

const char* kWays[] = {"hipHostMalloc portable", "hipHostMalloc default", "mmap+THP+touch+register",
                       "mmap+touch+register", "mmap populate+register"};

Buffer make(int way, std::size_t bytes) {
  Buffer b{nullptr, bytes, way};
  if (way <= 1) {
    if (hipHostMalloc(&b.p, bytes, way == 0 ? hipHostMallocPortable : hipHostMallocDefault) != hipSuccess) std::abort();
    return b;
  }
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (way == 4 ? MAP_POPULATE : 0);
  b.p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (b.p == MAP_FAILED) std::abort();
  if (way == 2) (void)madvise(b.p, bytes, MADV_HUGEPAGE);
  if (way != 4) std::memset(b.p, 0, bytes);
  if (hipHostRegister(b.p, bytes, hipHostRegisterPortable) != hipSuccess) std::abort();
  return b;
}

void drop(Buffer& b) {
  if (b.way <= 1) (void)hipHostFree(b.p);
  else {
    (void)hipHostUnregister(b.p);
    munmap(b.p, b.bytes);
  }
}

// Wall seconds for `threads` threads each making `each` buffers.
double run(int way, int threads, int each, std::size_t bytes) {
  std::vector<std::vector<Buffer>> made(threads);
  std::vector<std::thread> ts;
  const double t0 = now();
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      (void)hipSetDevice(0);
      for (int i = 0; i < each; ++i) made[t].push_back(make(way, bytes));
    });
  for (auto& t : ts) t.join();
  const double wall = now() - t0;
  for (auto& v : made)
    for (auto& b : v) drop(b);
  return wall;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4;
  const std::size_t bytes = (mib << 20) + 4096;
  (void)hipSetDevice(0);
  (void)hipFree(nullptr);
  if (FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    char line[128] = {};
    if (std::fgets(line, sizeof line, f)) std::printf("THP: %s", line);
    std::fclose(f);
  }
  run(0, 1, 1, bytes);  // warm-up
  for (int way = 0; way < 5; ++way) {
    const double one = run(way, 1, 1, bytes), serial = run(way, 1, 24, bytes), twelve = run(way, 12, 2, bytes);
    std::printf("%-26s %zu MiB: one %.2f ms, 24 from one thread %.1f ms, 2 each from 12 threads %.1f ms (%.2f GB/s)\n",
                kWays[way], mib, one * 1e3, serial * 1e3, twelve * 1e3, 24.0 * bytes / twelve / 1e9);
  }
  return 0;
}
