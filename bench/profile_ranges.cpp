// SPDX-License-Identifier: MIT
// What a profiler range per request costs (lib/runtime/profile.hpp), as ratios measured in one run:
//   1. a Range while ranges are off (the default) against an empty loop iteration;
//   2. a Range while they are on (the build's backend: NVTX, roctx or none);
//   3. hipFileRead of 4 KiB from the page cache into host memory with ProfileNvtx off and on.
// Usage: profile_ranges [ITERATIONS] (default 2,000,000; the reads use ITERATIONS / 20).
#include <fcntl.h>
#include <unistd.h>

#include <hipfile/hipfile.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/profile.hpp"

namespace profile = hipfile::engine::profile;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::size_t g_sink = 0;

template <class F>
double ns_per(std::size_t n, F&& body) {
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < n; ++i) body(i);
  return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / static_cast<double>(n);
}

double range_ns(std::size_t n) {
  return ns_per(n, [](std::size_t i) {
    profile::Range r("hipFileRead", i, 0);
    g_sink = g_sink + i;
  });
}

// ns per 4 KiB hipFileRead (host memory, page cache) with the parameter as given.
double read_ns(const std::string& path, std::size_t n, bool nvtx) {
  if (hipFileSetParameterBool(hipFileParamProfileNvtx, nvtx).err != hipFileSuccess) std::exit(1);
  int fd = ::open(path.c_str(), O_RDONLY);
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (fd < 0 || hipFileHandleRegister(&fh, &d).err != hipFileSuccess) std::exit(1);
  std::vector<char> buf(4096);
  (void)hipFileRead(fh, buf.data(), buf.size(), 0, 0);  // warm
  const double ns = ns_per(n, [&](std::size_t i) {
    if (hipFileRead(fh, buf.data(), buf.size(), static_cast<hoff_t>((i % 256) * 4096), 0) != 4096) std::exit(1);
  });
  hipFileHandleDeregister(fh);
  ::close(fd);
  if (hipFileDriverClose().err != hipFileSuccess) std::exit(1);
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000;
  const double empty = ns_per(n, [](std::size_t i) { g_sink = g_sink + i; });
  profile::set_enabled(false);
  const double off = range_ns(n);
  profile::set_enabled(true);
  const double on = range_ns(n / 10);
  profile::set_enabled(false);

  const char* dir = std::getenv("HIPFILE_TEST_DIR");
  const std::string path = std::string(dir && *dir ? dir : "/var/tmp") + "/profile-ranges." + std::to_string(::getpid());
  {
    std::vector<char> data(256 * 4096, 'x');
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) return 1;
    ::close(fd);
  }
  const std::size_t reads = n / 20 ? n / 20 : 1;
  const double read_off = read_ns(path, reads, false);
  const double read_on = read_ns(path, reads, true);
  const double read_off2 = read_ns(path, reads, false);  // the off figure twice: its spread
  ::unlink(path.c_str());

  std::printf("profiler ranges, backend %s, %zu iterations\n", profile::backend(), n);
  std::printf("  empty loop iteration          %8.2f ns\n", empty);
  std::printf("  Range, ranges off             %8.2f ns  (+%.2f ns over the empty loop)\n", off, off - empty);
  std::printf("  Range, ranges on              %8.2f ns\n", on);
  std::printf("  hipFileRead 4 KiB host, off   %8.0f ns  (again: %.0f ns, ratio %.3f)\n", read_off, read_off2,
              read_off2 / read_off);
  std::printf("  hipFileRead 4 KiB host, on    %8.0f ns  (ratio on/off %.3f)\n", read_on, read_on / read_off);
  std::printf("  off-range share of a 4 KiB read: %.4f%%\n", 100.0 * (off - empty) / read_off);
  return 0;
}
