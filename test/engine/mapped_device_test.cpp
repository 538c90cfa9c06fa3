// SPDX-License-Identifier: MIT
// The mapped read path pins page-cache pages in the current device's context, so a worker must
// serve each job on the job's device. A worker that made lanes for two devices used to stay on
// the last one it made a lane for, and pinned a later read's pages for the other device's
// context. hipHostRegister is interposed here (for the static core linked into this
// executable) to record the device current at each pin. Two hip-cpu devices
// (HIPCPU_DEVICE_COUNT=2, test/engine/meson.build).
#include <fcntl.h>

#include <hip/hip_runtime_api.h>  // defines __HIP_PLATFORM_CPU__ on hip-cpu

#ifdef __HIP_PLATFORM_CPU__
#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "../c_api/helpers.hpp"
#include "all_resident.hpp"

using namespace hipfile::test;

namespace {
constexpr std::size_t kMiB = 1u << 20;
constexpr unsigned kReadOnly = 0x8;  // hipHostRegisterReadOnly: the mapped path's pins

std::mutex g_mu;
std::vector<int> g_pin_devices;  // the current device at each read-only pin
}  // namespace

extern "C" hipError_t hipHostRegister(void* host, size_t bytes, unsigned int flags) {
  using Real = hipError_t (*)(void*, size_t, unsigned int);
  static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "hipHostRegister"));
  if (flags & kReadOnly) {
    int device = -1;
    (void)hipGetDevice(&device);
    std::lock_guard lock(g_mu);
    g_pin_devices.push_back(device);
  }
  return real(host, bytes, flags);
}

namespace {
// A mapped read of the whole file into memory of `device`; returns the devices the pins were
// made on.
std::vector<int> pins_of_read(const Registered& r, std::size_t n, int device, std::uint64_t seed) {
  {
    std::lock_guard lock(g_mu);
    g_pin_devices.clear();
  }
  DeviceMem mem(n, device);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, seed));
  std::lock_guard lock(g_mu);
  return g_pin_devices;
}
}  // namespace

TEST_CASE("A worker pins a mapped read's pages on the read's device", "[mapped][multidevice]") {
  int devices = 0;
  REQUIRE(hipGetDeviceCount(&devices) == hipSuccess);
  REQUIRE(devices >= 2);  // HIPCPU_DEVICE_COUNT=2
  ClosedDriver guard;
  // One worker: it makes a lane for device 0, then for device 1, then serves device 0 again.
  ScopedEnv env({{"HIPFILE_THREADS", "1"}});  // and one mapping worker, the fixed choice
  AllResident cached;  // the mapped path is taken for resident files only
  const std::size_t n = 40 * kMiB;
  TempFile f(n, 41);
  Registered r(f.path(), O_RDONLY);
  for (int device : {0, 1, 0}) {
    CAPTURE(device);
    const std::vector<int> pins = pins_of_read(r, n, device, 41);
    REQUIRE_FALSE(pins.empty());  // the mapped path was taken
    for (int pinned_on : pins) CHECK(pinned_on == device);
  }
}

#endif
