// SPDX-License-Identifier: MIT
#include "test_support.hpp"

#include "catch.hpp"
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace hipfile::test {

std::string test_dir() {
  if (const char* d = std::getenv("HIPFILE_TEST_DIR"); d && *d) return d;
  return "/var/tmp";
}

TempFile::TempFile(std::size_t size, std::uint64_t seed) {
  static std::atomic<unsigned> counter{0};
  path_ = test_dir() + "/hipfile-test-" + std::to_string(getpid()) + "-" +
          std::to_string(counter.fetch_add(1));
  write_file(path_, pattern(size, seed));
}

TempFile::~TempFile() { ::unlink(path_.c_str()); }

std::vector<std::byte> pattern(std::size_t n, std::uint64_t seed, std::uint64_t offset) {
  std::vector<std::byte> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // A cheap mix of the absolute position, so shifted windows compare equal and
    // off-by-one placements do not.
    std::uint64_t x = (offset + i) * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    out[i] = static_cast<std::byte>(x ^ (x >> 8));
  }
  return out;
}

void write_file(const std::string& path, std::span<const std::byte> bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) { ::close(fd); throw std::runtime_error("cannot write " + path); }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

std::vector<std::byte> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  std::vector<std::byte> out;
  std::byte buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) { ::close(fd); throw std::runtime_error("cannot read " + path); }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  ::close(fd);
  return out;
}

std::vector<std::byte> to_host(const void* src, std::size_t n) {
  std::vector<std::byte> out(n);
  if (n && hipMemcpy(out.data(), src, n, hipMemcpyDefault) != hipSuccess)
    throw std::runtime_error("hipMemcpy to host failed");
  return out;
}

void to_device(void* dst, std::span<const std::byte> bytes) {
  if (!bytes.empty() && hipMemcpy(dst, bytes.data(), bytes.size(), hipMemcpyDefault) != hipSuccess)
    throw std::runtime_error("hipMemcpy to device failed");
}

void fill_device(void* dst, int value, std::size_t n) {
  if (n == 0) return;
  // hipMemset works on the current device's memory: switch to the allocation's device.
  hipPointerAttribute_t attr{};
  int old = 0, dev = -1;
  (void)hipGetDevice(&old);
  if (hipPointerGetAttributes(&attr, dst) == hipSuccess) dev = attr.device;
  if (dev >= 0 && dev != old) (void)hipSetDevice(dev);
  hipError_t e = hipMemset(dst, value, n);
  if (dev >= 0 && dev != old) (void)hipSetDevice(old);
  if (e != hipSuccess) throw std::runtime_error("hipMemset failed");
}

#if HIP_VERSION_MAJOR < 6
namespace {
struct HostCall {
  void (*fn)(void*);
  void* data;
};
void run_host_call(hipStream_t, hipError_t, void* p) {
  HostCall call = *static_cast<HostCall*>(p);
  delete static_cast<HostCall*>(p);
  call.fn(call.data);
}
}  // namespace
#endif

hipError_t launch_host_func(hipStream_t stream, void (*fn)(void*), void* data) {
#if HIP_VERSION_MAJOR >= 6
  return hipLaunchHostFunc(stream, fn, data);
#else
  return hipStreamAddCallback(stream, run_host_call, new HostCall{fn, data}, 0);
#endif
}

bool have_device() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess && n > 0;
}

DeviceMem::DeviceMem(std::size_t n, int device) : n_(n) {
  int old = 0;
  if (device >= 0) { (void)hipGetDevice(&old); (void)hipSetDevice(device); }
  hipError_t e = hipMalloc(&p_, n);
  if (device >= 0) (void)hipSetDevice(old);
  if (e != hipSuccess) throw std::runtime_error("hipMalloc failed");
}

DeviceMem::~DeviceMem() { (void)hipFree(p_); }

}  // namespace hipfile::test

std::string Catch::StringMaker<std::vector<std::byte>>::convert(const std::vector<std::byte>& v) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::byte b : v) h = (h ^ static_cast<std::uint8_t>(b)) * 1099511628211ull;
  std::string out = "{" + std::to_string(v.size()) + " bytes:";
  for (std::size_t i = 0; i < v.size() && i < 12; ++i) out += " " + std::to_string(static_cast<int>(v[i]));
  char hash[32];
  std::snprintf(hash, sizeof hash, "%s fnv %016llx}", v.size() > 12 ? " ..." : "",
                static_cast<unsigned long long>(h));
  return out + hash;
}
