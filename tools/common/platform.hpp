// SPDX-License-Identifier: MIT
// What the tools report about the machine: the HIP platform this build targets, the runtime
// version and the GPUs, gathered through the HIP subset only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::tools {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::uint64_t memory = 0;
  std::string pci_bus_id;
};

struct PlatformInfo {
  std::string platform;        // "amd", "nvidia" or "cpu"
  std::string runtime;         // "HIP runtime 60200000" or the error getting it
  int runtime_version = 0;
  int driver_version = 0;
  std::string device_error;    // why there are no GPUs, when there are none
  std::vector<GpuInfo> gpus;
  unsigned cpus = 0;
  std::string hostname;
  std::string kernel;
};

/// The build's platform name, fixed at compile time.
const char* platform_name();
/// Queries the runtime; never throws (errors land in the text fields).
PlatformInfo query_platform();
/// "6.2.0" from HIP's encoded version (major*1e7 + minor*1e5 + patch) or CUDA's (major*1000 + minor*10).
std::string decode_runtime_version(int version);

}  // namespace hipfile::tools
