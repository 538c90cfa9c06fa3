// SPDX-License-Identifier: MIT
#include "platform.hpp"

#include "errors.hpp"

#include <hip/hip_runtime_api.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fmt/format.h>
#include <thread>

namespace hipfile::tools {

const char* platform_name() {
#if defined(__HIP_PLATFORM_CPU__)
  return "cpu";
#elif defined(__HIP_PLATFORM_NVIDIA__)
  return "nvidia";
#else
  return "amd";
#endif
}

std::string decode_runtime_version(int v) {
  // On NVIDIA the runtime reports CUDA's encoding (12080 = 12.8); HIP's is major*1e7+minor*1e5+patch.
  if (v >= 10000000) return fmt::format("{}.{}.{}", v / 10000000, v / 100000 % 100, v % 100000);
  if (v >= 1000) return fmt::format("{}.{}", v / 1000, v % 1000 / 10);
  return fmt::format("{}", v);
}

PlatformInfo query_platform() {
  PlatformInfo info;
  info.platform = platform_name();
  info.cpus = std::thread::hardware_concurrency();
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;
  utsname u{};
  if (uname(&u) == 0) info.kernel = fmt::format("{} {} {}", u.sysname, u.release, u.machine);

  hipError_t e = hipRuntimeGetVersion(&info.runtime_version);
  info.runtime = e == hipSuccess ? decode_runtime_version(info.runtime_version) : "unavailable: " + hip_text(e);
  if (hipDriverGetVersion(&info.driver_version) != hipSuccess) info.driver_version = 0;

  int count = 0;
  e = hipGetDeviceCount(&count);
  if (e != hipSuccess) {
    info.device_error = hip_text(e);
    return info;
  }
  if (count == 0) info.device_error = "the runtime reports no devices";
  for (int d = 0; d < count; ++d) {
    GpuInfo g;
    g.index = d;
    hipDeviceProp_t prop{};
    if (hipGetDeviceProperties(&prop, d) == hipSuccess) {
      g.name = prop.name;
      g.memory = prop.totalGlobalMem;
    }
    char bus[64] = {};
    if (hipDeviceGetPCIBusId(bus, sizeof bus, d) == hipSuccess) g.pci_bus_id = bus;
    info.gpus.push_back(std::move(g));
  }
  return info;
}

}  // namespace hipfile::tools
