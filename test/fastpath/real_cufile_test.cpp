// SPDX-License-Identifier: MIT
// platform=nvidia, on a real GPU: the library's own libcufile search (no HIPFILE_CUFILE_LIBRARY)
// at driver open, then 64 MiB read and written between a registered file and device memory.
// Where the kernel has no nvidia-fs (our H200 machine) libcufile is not loaded; where libcufile
// is loaded and reports no GPU-direct storage, the report must say so; either way and every byte must be counted under the engine's statistics path;
// where GDS is reported, the report must say that instead (not a failure).
//
// A plain program rather than a Catch2 one: its exit status says SKIP (77) for a missing GPU or
// libcufile, and its output (the report and the statistics) is what the GPU log should show.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kSize = 64u << 20;
int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("  %-4s %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  std::uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v[i] = static_cast<unsigned char>(x);
  }
  return v;
}

hipFileStatsL1_t stats() {
  hipFileStatsL1_t s{};
  if (hipFileGetStatsExL1(&s, sizeof s).err != hipFileSuccess) std::printf("  hipFileGetStatsExL1 failed\n");
  return s;
}

void print_stats(const char* label, const hipFileStatsL1_t& s) {
  static const char* const paths[] = {"engine", "host", "cufile", "amd"};
  static const char* const ops[] = {"read", "write"};
  for (int p = 0; p < hipFileStatsPathCount; ++p)
    for (int o = 0; o < hipFileStatsOpCount; ++o)
      std::printf("  stats %s: path %-6s %-5s ops %llu bytes %llu errors %llu\n", label, paths[p], ops[o],
                  static_cast<unsigned long long>(s.path[p][o].ops),
                  static_cast<unsigned long long>(s.path[p][o].bytes),
                  static_cast<unsigned long long>(s.path[p][o].errors));
}

}  // namespace

int main() {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) {
    std::puts("SKIP: the HIP runtime reports no device");
    return 77;
  }
  // The library's own search, and a decision not forced either way.
  ::unsetenv("HIPFILE_CUFILE_LIBRARY");
  ::unsetenv("HIPFILE_FORCE_COMPAT_MODE");
  if (hipFileDriverOpen().err != hipFileSuccess) {
    std::puts("FAIL: hipFileDriverOpen");
    return 1;
  }
  char buf[HIPFILE_FASTPATH_REPORT_MAX];
  if (hipFileDriverGetFastpathReport(buf, sizeof buf).err != hipFileSuccess) {
    std::puts("FAIL: hipFileDriverGetFastpathReport");
    return 1;
  }
  const std::string report = buf;
  std::printf("fastpath report: %s\n", report.c_str());
  // Without nvidia-fs (and no P2PDMA asked) the library does not load libcufile at all: no GDS.
  const bool no_kernel_support = report.find("reason=no nvidia-fs kernel module") != std::string::npos;
  if (report.find(" library=none ") != std::string::npos && !no_kernel_support) {
    std::puts("SKIP: no libcufile found by the library's search");
    (void)hipFileDriverClose();
    return 77;
  }
  const bool gds = report.find(" gds=yes ") != std::string::npos;
  std::printf("checks (%s):\n", gds ? "GDS reported: cuFile may serve aligned device I/O"
                                    : "no GDS: every byte must go through the engine");
  expect(report.rfind(gds ? "fastpath=cufile " : "fastpath=none ", 0) == 0,
         gds ? "report: fastpath=cufile"
             : no_kernel_support ? "report: fastpath=none (no nvidia-fs: libcufile not loaded)"
                                 : "report: fastpath=none (libcufile loaded, then unloaded)");

  const char* dir = std::getenv("HIPFILE_TEST_DIR");
  std::string path = std::string(dir && *dir ? dir : "/var/tmp") + "/hipfile-real-cufile-" + std::to_string(getpid());
  const std::vector<unsigned char> in = pattern(kSize, 1), out = pattern(kSize, 2);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::pwrite(fd, in.data(), kSize, 0) != static_cast<ssize_t>(kSize)) {
    std::printf("FAIL: cannot write %s\n", path.c_str());
    return 1;
  }
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  hipFileHandle_t h = nullptr;
  void* mem = nullptr;
  bool ready = hipFileHandleRegister(&h, &d).err == hipFileSuccess;
  expect(ready, "hipFileHandleRegister");
  ready = ready && hipMalloc(&mem, kSize) == hipSuccess;
  expect(mem != nullptr, "hipMalloc 64 MiB");

  if (ready) {
    const hipFileStatsL1_t before = stats();
    std::vector<unsigned char> host(kSize);
    expect(hipFileRead(h, mem, kSize, 0, 0) == static_cast<ssize_t>(kSize), "hipFileRead 64 MiB");
    expect(hipMemcpy(host.data(), mem, kSize, hipMemcpyDeviceToHost) == hipSuccess && host == in,
           "device memory holds the file's bytes");
    expect(hipMemcpy(mem, out.data(), kSize, hipMemcpyHostToDevice) == hipSuccess, "device memory refilled");
    expect(hipFileWrite(h, mem, kSize, 0, 0) == static_cast<ssize_t>(kSize), "hipFileWrite 64 MiB");
    std::fill(host.begin(), host.end(), 0);
    expect(::pread(fd, host.data(), kSize, 0) == static_cast<ssize_t>(kSize) && host == out,
           "the file holds the device's bytes");
    const hipFileStatsL1_t after = stats();
    print_stats("before", before);
    print_stats("after", after);
    auto delta = [&](hipFileStatsPath_t p, hipFileStatsOp_t o) {
      return after.path[p][o].bytes - before.path[p][o].bytes;
    };
    const auto engine_r = delta(hipFileStatsPathEngine, hipFileStatsOpRead);
    const auto engine_w = delta(hipFileStatsPathEngine, hipFileStatsOpWrite);
    const auto cufile_r = delta(hipFileStatsPathCufile, hipFileStatsOpRead);
    const auto cufile_w = delta(hipFileStatsPathCufile, hipFileStatsOpWrite);
    std::printf("  bytes this run: engine read %llu write %llu, cufile read %llu write %llu\n",
                static_cast<unsigned long long>(engine_r), static_cast<unsigned long long>(engine_w),
                static_cast<unsigned long long>(cufile_r), static_cast<unsigned long long>(cufile_w));
    if (gds) {
      expect(engine_r + cufile_r == kSize && engine_w + cufile_w == kSize,
             "every byte counted once, under the engine or cufile path");
    } else {
      expect(engine_r == kSize && engine_w == kSize, "the engine path counts all 64 MiB read and written");
      expect(cufile_r == 0 && cufile_w == 0, "the cufile path counts nothing");
    }
  }
  if (mem != nullptr) (void)hipFree(mem);
  if (h != nullptr) hipFileHandleDeregister(h);
  ::close(fd);
  ::unlink(path.c_str());
  expect(hipFileDriverClose().err == hipFileSuccess, "hipFileDriverClose");
  std::printf("%s: %d failed\n", failures == 0 ? "PASS" : "FAIL", failures);
  return failures == 0 ? 0 : 1;
}
