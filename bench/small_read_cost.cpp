// SPDX-License-Identifier: MIT
// Where a small hipFileRead's time goes: one 4 KiB read from a hot
// file into device memory, by hand and through the library, and the pieces either is made of,
// each timed alone. The variants take turns in rounds, so a drifting machine moves all alike.
// Usage: small_read_cost FILE [READS_PER_ROUND] [ROUNDS] [SIZE]
//   FILE is read at random SIZE-aligned offsets (default 4096) within its first 256 MiB,
//   which should be in the page cache (the program reads it once first).
#include <fcntl.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>
#include <hipfile/hipfile.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "check_hip.hpp"

using Clock = std::chrono::steady_clock;

namespace {

struct Setup {
  int fd = -1;
  std::size_t size = 4096;
  void* pinned = nullptr;
  void* pageable = nullptr;  // page-aligned, not pinned: the runtime stages its copies itself
  void* dev = nullptr;       // unregistered
  void* dev_reg = nullptr;   // registered with hipFileBufRegister
  hipStream_t stream = nullptr;  // blocking, like the library's lane for sync requests
  hipEvent_t done = nullptr;     // without timing, recorded after a copy
  hipFileHandle_t fh = nullptr;
  std::vector<off_t> offsets;
};

off_t offset_of(const Setup& s, std::size_t i) { return s.offsets[i % s.offsets.size()]; }

void need_pread(const Setup& s, std::size_t i) {
  if (::pread(s.fd, s.pinned, s.size, offset_of(s, i)) != static_cast<ssize_t>(s.size)) {
    std::perror("pread");
    std::exit(1);
  }
}

void need_pread_pageable(const Setup& s, std::size_t i) {
  if (::pread(s.fd, s.pageable, s.size, offset_of(s, i)) != static_cast<ssize_t>(s.size)) {
    std::perror("pread");
    std::exit(1);
  }
}

void need_read(const Setup& s, void* dev, std::size_t i) {
  const ssize_t n = hipFileRead(s.fh, dev, s.size, offset_of(s, i), 0);
  if (n != static_cast<ssize_t>(s.size)) {
    std::fprintf(stderr, "hipFileRead returned %zd\n", n);
    std::exit(1);
  }
}

void copy_sync(const Setup& s) { CHECK_HIP(hipMemcpy(s.dev, s.pinned, s.size, hipMemcpyHostToDevice)); }

void copy_on_stream(const Setup& s) {
  CHECK_HIP(hipMemcpyAsync(s.dev, s.pinned, s.size, hipMemcpyHostToDevice, s.stream));
  CHECK_HIP(hipStreamSynchronize(s.stream));
}

void copy_pageable_on_stream(const Setup& s) {
  CHECK_HIP(hipMemcpyAsync(s.dev, s.pageable, s.size, hipMemcpyHostToDevice, s.stream));
  CHECK_HIP(hipStreamSynchronize(s.stream));
}

// Waits by asking, as a spinning caller could instead of hipStreamSynchronize.
void copy_on_stream_query(const Setup& s) {
  CHECK_HIP(hipMemcpyAsync(s.dev, s.pinned, s.size, hipMemcpyHostToDevice, s.stream));
  hipError_t e;
  while ((e = hipStreamQuery(s.stream)) == hipErrorNotReady) {
  }
  CHECK_HIP(e);
}

void copy_on_stream_event(const Setup& s) {
  CHECK_HIP(hipMemcpyAsync(s.dev, s.pinned, s.size, hipMemcpyHostToDevice, s.stream));
  CHECK_HIP(hipEventRecord(s.done, s.stream));
  hipError_t e;
  while ((e = hipEventQuery(s.done)) == hipErrorNotReady) {
  }
  CHECK_HIP(e);
}

// By hand in `pieces` parts on one stream: each part's copy is queued as soon as its pread is
// done, so the next pread overlaps it, and one synchronize waits for all (what an inline read
// cut into pieces does; asks whether reads under 128 KiB gain from it).
void by_hand_in_pieces(const Setup& s, std::size_t i, std::size_t pieces) {
  const std::size_t part = (s.size / pieces + 4095) / 4096 * 4096;
  const off_t at = offset_of(s, i);
  for (std::size_t done = 0; done < s.size; done += part) {
    const std::size_t n = std::min(part, s.size - done);
    auto* host = static_cast<char*>(s.pinned) + done;
    if (::pread(s.fd, host, n, at + static_cast<off_t>(done)) != static_cast<ssize_t>(n)) {
      std::perror("pread");
      std::exit(1);
    }
    CHECK_HIP(hipMemcpyAsync(static_cast<char*>(s.dev) + done, host, n, hipMemcpyHostToDevice, s.stream));
  }
  CHECK_HIP(hipStreamSynchronize(s.stream));
}

struct Variant {
  const char* name;
  std::function<void(const Setup&, std::size_t)> once;
  std::vector<double> ns;  // per call, one entry per round
};

std::vector<Variant> variants() {
  return {
      {"pread alone (into pinned)", [](const Setup& s, std::size_t i) { need_pread(s, i); }, {}},
      {"hipMemcpy alone (pinned to device)", [](const Setup& s, std::size_t) { copy_sync(s); }, {}},
      {"hipMemcpyAsync + hipStreamSynchronize", [](const Setup& s, std::size_t) { copy_on_stream(s); }, {}},
      {"hipMemcpyAsync + spin on hipStreamQuery", [](const Setup& s, std::size_t) { copy_on_stream_query(s); }, {}},
      {"hipMemcpyAsync + hipEventRecord + spin on hipEventQuery",
       [](const Setup& s, std::size_t) { copy_on_stream_event(s); }, {}},
      {"hipMemcpyAsync from pageable + hipStreamSynchronize",
       [](const Setup& s, std::size_t) { copy_pageable_on_stream(s); }, {}},
      {"hipPointerGetAttribute(BUFFER_ID)",
       [](const Setup& s, std::size_t) {
         unsigned long long id = 0;
         CHECK_HIP(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, s.dev));
       },
       {}},
      {"hipPointerGetAttributes",
       [](const Setup& s, std::size_t) {
         hipPointerAttribute_t a{};
         CHECK_HIP(hipPointerGetAttributes(&a, s.dev));
       },
       {}},
      {"hipGetDevice", [](const Setup&, std::size_t) { int d = 0; CHECK_HIP(hipGetDevice(&d)); }, {}},
      {"by hand: pread + hipMemcpy",
       [](const Setup& s, std::size_t i) {
         need_pread(s, i);
         copy_sync(s);
       },
       {}},
      {"by hand on a stream: pread + async + sync",
       [](const Setup& s, std::size_t i) {
         need_pread(s, i);
         copy_on_stream(s);
       },
       {}},
      {"by hand on a stream in 2 pieces (pread + async each, one sync)",
       [](const Setup& s, std::size_t i) { by_hand_in_pieces(s, i, 2); },
       {}},
      {"by hand on a stream in 4 pieces (pread + async each, one sync)",
       [](const Setup& s, std::size_t i) { by_hand_in_pieces(s, i, 4); },
       {}},
      {"by hand, pageable: pread + async + sync",
       [](const Setup& s, std::size_t i) {
         need_pread_pageable(s, i);
         copy_pageable_on_stream(s);
       },
       {}},
      {"hipFileRead, registered buffer", [](const Setup& s, std::size_t i) { need_read(s, s.dev_reg, i); }, {}},
      {"hipFileRead, unregistered buffer", [](const Setup& s, std::size_t i) { need_read(s, s.dev, i); }, {}},
  };
}

double ns_per_call(const Setup& s, const Variant& v, std::size_t reads) {
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < reads; ++i) v.once(s, i);
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / static_cast<double>(reads);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double median_of(const std::vector<Variant>& vs, const std::string& name) {
  for (const Variant& v : vs)
    if (name == v.name) return median(v.ns);
  std::fprintf(stderr, "no variant named '%s'\n", name.c_str());
  std::exit(1);
}

Setup open_setup(const char* path, std::size_t size) {
  Setup s;
  s.size = size;
  s.fd = ::open(path, O_RDONLY);
  if (s.fd < 0) {
    std::perror(path);
    std::exit(1);
  }
  const off_t end = ::lseek(s.fd, 0, SEEK_END);
  const std::size_t span = static_cast<std::size_t>(std::min<off_t>(end, off_t{256} << 20)) / size * size;
  if (span < size) {
    std::fprintf(stderr, "%s: smaller than one read\n", path);
    std::exit(1);
  }
  std::vector<char> warm(1 << 20);
  for (off_t at = 0; at < static_cast<off_t>(span); at += static_cast<off_t>(warm.size()))
    if (::pread(s.fd, warm.data(), warm.size(), at) < 0) std::exit(1);
  std::uint64_t x = 88172645463325252ull;  // xorshift: the same offsets every run
  for (int i = 0; i < 65536; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    s.offsets.push_back(static_cast<off_t>(x % (span / size) * size));
  }
  CHECK_HIP(hipHostMalloc(&s.pinned, size, 0));
  s.pageable = std::aligned_alloc(4096, (size + 4095) / 4096 * 4096);
  if (s.pageable == nullptr) std::exit(1);
  std::memset(s.pageable, 0, size);
  CHECK_HIP(hipMalloc(&s.dev, size));
  CHECK_HIP(hipMalloc(&s.dev_reg, size));
  CHECK_HIP(hipStreamCreate(&s.stream));
  CHECK_HIP(hipEventCreateWithFlags(&s.done, hipEventDisableTiming));
  if (hipFileDriverOpen().err != hipFileSuccess || hipFileBufRegister(s.dev_reg, size, 0).err != hipFileSuccess) {
    std::fprintf(stderr, "hipFileDriverOpen / hipFileBufRegister failed\n");
    std::exit(1);
  }
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = s.fd;
  if (hipFileHandleRegister(&s.fh, &d).err != hipFileSuccess) {
    std::fprintf(stderr, "%s: hipFileHandleRegister failed\n", path);
    std::exit(1);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [READS_PER_ROUND] [ROUNDS] [SIZE]\n", argv[0]);
    return 2;
  }
  const std::size_t reads = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20000;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 7;
  const std::size_t size = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 4096;
  Setup s = open_setup(argv[1], size);
  std::vector<Variant> vs = variants();
  for (Variant& v : vs) (void)ns_per_call(s, v, reads / 10 + 1);  // warm: lanes, caches
  for (int r = 0; r < rounds; ++r)
    for (Variant& v : vs) v.ns.push_back(ns_per_call(s, v, reads));
  std::printf("%zu-byte reads, %zu per round, %d rounds (ns per call)\n\n", size, reads, rounds);
  std::printf("| step | median | best |\n| --- | --- | --- |\n");
  for (const Variant& v : vs)
    std::printf("| %s | %.0f | %.0f |\n", v.name, median(v.ns), *std::min_element(v.ns.begin(), v.ns.end()));
  const double hand = median_of(vs, "by hand: pread + hipMemcpy");
  const double reg = median_of(vs, "hipFileRead, registered buffer");
  const double unreg = median_of(vs, "hipFileRead, unregistered buffer");
  std::printf("\nby hand / hipFileRead (medians): registered %.3fx, unregistered %.3fx\n", hand / reg, hand / unreg);
  (void)hipFileHandleDeregister(s.fh);
  (void)hipFileBufDeregister(s.dev_reg);
  (void)hipFileDriverClose();
  std::free(s.pageable);
  return 0;
}
