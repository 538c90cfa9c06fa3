// SPDX-License-Identifier: MIT
// hipfile++ acceptance figures, measured in one run as ratios:
//  1. 256 reads of 4 MiB into device memory: in flight through File::read_async futures from
//     one thread, against the same reads by 8 threads calling File::read (page cache warm).
//  2. A checkpoint of 50 device tensors (1 B .. 64 MiB) into one file: through hipfile::Batch,
//     against a loop of File::write_all; each includes File::sync, and is read back and compared.
// Usage: cxx_futures [DIR] [ROUNDS]   (DIR default $HIPFILE_TEST_DIR or /var/tmp; ROUNDS 3, best kept)
#include <hipfile++/hipfile.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check_hip.hpp"
#include "need.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<unsigned char> host_pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
  return v;
}

// --- 1. reads: futures from one thread against 8 threads -------------------------------------
constexpr std::size_t kReads = 256, kReadSize = 4u << 20;

double futures_read(const hipfile::File& f, hipfile::DeviceBuffer& dst) {
  const auto t0 = Clock::now();
  std::vector<hipfile::Pending<>> inflight;
  inflight.reserve(kReads);
  for (std::size_t i = 0; i < kReads; ++i)
    inflight.push_back(f.read_async(dst.bytes().subspan(i * kReadSize, kReadSize), static_cast<hipfile::Offset>(i * kReadSize)));
  for (auto& p : inflight)
    if (need(p.get(), "read_async") != kReadSize) std::exit(1);
  return seconds_since(t0);
}

double threads_read(const hipfile::File& f, hipfile::DeviceBuffer& dst, unsigned threads) {
  const auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = t; i < kReads; i += threads)
        if (need(f.read(dst.bytes().subspan(i * kReadSize, kReadSize), static_cast<hipfile::Offset>(i * kReadSize)),
                 "read") != kReadSize)
          std::exit(1);
    });
  for (auto& th : pool) th.join();
  return seconds_since(t0);
}

void bench_reads(const std::string& dir, int rounds, hipfile::DirectIo direct, const char* how) {
  const std::string path = dir + "/hipfile-bench-futures.bin";
  const std::size_t total = kReads * kReadSize;
  {
    auto f = need(hipfile::File::open(path, O_RDWR | O_CREAT | O_TRUNC), "open");
    const auto chunk = host_pattern(kReadSize, 1);
    for (std::size_t i = 0; i < kReads; ++i)
      need(f.write_all(std::span(chunk), static_cast<hipfile::Offset>(i * kReadSize)), "write");
    need(f.sync(), "sync");
  }
  auto f = need(hipfile::File::open(path, O_RDONLY, 0, direct), "open");
  auto dst = need(hipfile::DeviceBuffer::allocate(total), "allocate");
  (void)threads_read(f, dst, 8);  // warm the page cache and the library (staging, executor)
  (void)futures_read(f, dst);
  double fut = 1e30, thr = 1e30;
  for (int r = 0; r < rounds; ++r) {  // alternating, best of each
    fut = std::min(fut, futures_read(f, dst));
    thr = std::min(thr, threads_read(f, dst, 8));
  }
  const double gb = static_cast<double>(total) / 1e9;
  std::printf("reads   256 x 4 MiB, %s, page cache warm: futures (1 thread) %.2f GB/s, 8 threads File::read %.2f GB/s, "
              "futures/threads %.2f\n",
              how, gb / fut, gb / thr, thr / fut);
  ::unlink(path.c_str());
}

// --- 2. checkpoint: Batch against a write_all loop -------------------------------------------
struct Checkpoint {
  std::vector<hipfile::DeviceBuffer> tensors;
  std::vector<hipfile::Offset> offsets;
  std::size_t bytes = 0;
};

Checkpoint make_checkpoint() {
  constexpr std::size_t kTensors = 50, kMax = 64u << 20;
  Checkpoint c;
  hipfile::Offset off = 0;
  for (std::size_t i = 0; i < kTensors; ++i) {
    const double t = static_cast<double>(i) / (kTensors - 1);
    const auto n = static_cast<std::size_t>(1 + (static_cast<double>(kMax) - 1) * t * t * t);
    auto buf = need(hipfile::DeviceBuffer::allocate(n), "allocate");
    const auto bytes = host_pattern(n, static_cast<unsigned>(i));
    CHECK_HIP(hipMemcpy(buf.data(), bytes.data(), n, hipMemcpyHostToDevice));
    c.offsets.push_back(off);
    off += static_cast<hipfile::Offset>((n + 4095) / 4096 * 4096);
    c.bytes += n;
    c.tensors.push_back(std::move(buf));
  }
  return c;
}

double batch_write(const Checkpoint& c, const std::string& path) {
  auto f = need(hipfile::File::open(path, O_RDWR | O_CREAT | O_TRUNC), "open");
  const auto t0 = Clock::now();
  hipfile::Batch batch;
  for (std::size_t i = 0; i < c.tensors.size(); ++i) batch.add_write(f, c.tensors[i].bytes(), c.offsets[i]);
  for (auto& r : batch.wait()) need(std::move(r), "batch write");
  need(f.sync(), "sync");
  return seconds_since(t0);
}

double loop_write(const Checkpoint& c, const std::string& path) {
  auto f = need(hipfile::File::open(path, O_RDWR | O_CREAT | O_TRUNC), "open");
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < c.tensors.size(); ++i) need(f.write_all(c.tensors[i].bytes(), c.offsets[i]), "write");
  need(f.sync(), "sync");
  return seconds_since(t0);
}

// Reads every tensor back (read_all) and compares it with the device original on the host.
bool identical(const Checkpoint& c, const std::string& path) {
  auto f = need(hipfile::File::open(path, O_RDONLY), "open");
  std::vector<hipfile::DeviceBuffer> back;
  std::vector<hipfile::ReadRequest> reads;
  for (std::size_t i = 0; i < c.tensors.size(); ++i) {
    back.push_back(need(hipfile::DeviceBuffer::allocate(c.tensors[i].size()), "allocate"));
    reads.push_back({back.back().bytes(), c.offsets[i]});
  }
  const auto results = hipfile::read_all(f, reads);
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (need(hipfile::Result<std::size_t>(results[i]), "read back") != c.tensors[i].size()) return false;
    std::vector<unsigned char> a(c.tensors[i].size()), b(a.size());
    CHECK_HIP(hipMemcpy(a.data(), c.tensors[i].data(), a.size(), hipMemcpyDeviceToHost));
    CHECK_HIP(hipMemcpy(b.data(), back[i].data(), b.size(), hipMemcpyDeviceToHost));
    if (a != b) return false;
  }
  return true;
}

void bench_checkpoint(const std::string& dir, int rounds) {
  const std::string path = dir + "/hipfile-bench-checkpoint.bin";
  const Checkpoint c = make_checkpoint();
  (void)loop_write(c, path);  // warm up
  double bat = 1e30, loop = 1e30;
  bool same = true;
  for (int r = 0; r < rounds; ++r) {
    bat = std::min(bat, batch_write(c, path));
    same = same && identical(c, path);
    loop = std::min(loop, loop_write(c, path));
    same = same && identical(c, path);
  }
  const double gb = static_cast<double>(c.bytes) / 1e9;
  std::printf("ckpt    50 tensors 1 B..64 MiB (%.0f MiB) + fdatasync: Batch %.2f GB/s, write_all loop %.2f GB/s, "
              "batch/loop %.2f, read back %s\n",
              static_cast<double>(c.bytes) / (1 << 20), gb / bat, gb / loop, loop / bat, same ? "identical" : "DIFFERENT");
  ::unlink(path.c_str());
  if (!same) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("HIPFILE_TEST_DIR");
  const std::string dir = argc > 1 ? argv[1] : (env ? env : "/var/tmp");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  auto driver = need(hipfile::Driver::open(), "driver");
  // Buffered first (the page cache serves both); then File::open's default, O_DIRECT, which
  // reads the disk whatever the cache holds, so both sides run at the disk's rate.
  bench_reads(dir, rounds, hipfile::DirectIo::off, "buffered");
  bench_reads(dir, rounds, hipfile::DirectIo::prefer, "O_DIRECT");
  bench_checkpoint(dir, rounds);
  return 0;
}
