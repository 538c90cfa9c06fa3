// SPDX-License-Identifier: MIT
// When registration helps, and what O_DIRECT costs on cached data (doc/using-cpp.md), measured
// in one run as ratios: File::read into device memory, one thread, page cache warm, for request
// sizes from 4 KiB to 64 MiB, with the buffer registered (hipFileBufRegister) against the same
// buffer unregistered, and a buffered File against an O_DIRECT one (File::open's default).
// Usage: cxx_registration [DIR] [ROUNDS]   (DIR default $HIPFILE_TEST_DIR or /var/tmp; ROUNDS 5, best kept)
#include <hipfile++/hipfile.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "need.hpp"

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kFileBytes = std::size_t{256} << 20;  // cached whole; every request size fits
constexpr std::size_t kBytesPerPass = std::size_t{256} << 20;

// One pass: requests of `size` at consecutive offsets (wrapping) until kBytesPerPass moved;
// small sizes are capped at 20000 calls. Returns GB/s.
double pass(const hipfile::File& f, std::span<std::byte> dst, std::size_t size) {
  const std::size_t calls = std::min<std::size_t>(kBytesPerPass / size, 20000);
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < calls; ++i) {
    const auto offset = static_cast<hipfile::Offset>((i * size) % kFileBytes);
    if (need(f.read(dst.first(size), offset), "read") != size) std::exit(1);
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return static_cast<double>(calls * size) / s / 1e9;
}

double best(const hipfile::File& f, std::span<std::byte> dst, std::size_t size, int rounds) {
  double b = 0;
  for (int r = 0; r < rounds; ++r) b = std::max(b, pass(f, dst, size));
  return b;
}

void write_file(const std::string& path) {
  auto f = need(hipfile::File::open(path, O_RDWR | O_CREAT | O_TRUNC, 0644, hipfile::DirectIo::off), "create");
  std::vector<unsigned char> block(4u << 20);
  for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<unsigned char>(i * 31 + 7);
  for (std::size_t off = 0; off < kFileBytes; off += block.size())
    if (need(f.write(std::span(block), static_cast<hipfile::Offset>(off)), "write") != block.size()) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("HIPFILE_TEST_DIR");
  const std::string dir = argc > 1 ? argv[1] : (env ? env : "/var/tmp");
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  auto driver = need(hipfile::Driver::open(), "driver");
  const std::string path = dir + "/hipfile-bench-registration.bin";
  write_file(path);
  auto buffered = need(hipfile::File::open(path, O_RDONLY, 0, hipfile::DirectIo::off), "open buffered");
  auto direct = need(hipfile::File::open(path, O_RDONLY), "open O_DIRECT");
  const std::size_t max_size = std::size_t{64} << 20;
  auto plain = need(hipfile::DeviceBuffer::allocate(max_size), "allocate");
  auto other = need(hipfile::DeviceBuffer::allocate(max_size), "allocate");
  auto reg = need(hipfile::Registration::create(std::span<const std::byte>(other.bytes())), "register");
  (void)pass(buffered, plain.bytes(), 4u << 20);  // warm the cache, the engine and the lanes
  (void)pass(buffered, other.bytes(), 4u << 20);

  std::printf("%-8s %12s %12s %10s %12s %10s\n", "size", "unreg GB/s", "reg GB/s", "reg/unreg", "O_DIRECT", "direct/buf");
  for (std::size_t size : {std::size_t{4} << 10, std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{4} << 20,
                           std::size_t{64} << 20}) {
    const double u = best(buffered, plain.bytes(), size, rounds);
    const double r = best(buffered, other.bytes(), size, rounds);
    const double d = best(direct, plain.bytes(), size, 1);  // the disk's rate: one pass is enough
    std::printf("%-8s %12.2f %12.2f %10.2f %12.2f %10.3f\n",
                size >= (1u << 20) ? (std::to_string(size >> 20) + " MiB").c_str() : (std::to_string(size >> 10) + " KiB").c_str(),
                u, r, r / u, d, d / u);
  }
  ::unlink(path.c_str());
  return 0;
}
