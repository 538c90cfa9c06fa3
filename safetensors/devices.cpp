// SPDX-License-Identifier: MIT
// The devices a load or stream places tensors on: asked of the runtime once, each checked.
#include "devices.hpp"

#include <hip/hip_runtime_api.h>

#include "fail.hpp"

namespace hipfile::safetensors::detail {

Result<Devices> runtime_devices() {
  Devices d;
  if (hipError_t e = hipGetDeviceCount(&d.count); e != hipSuccess)
    return fail(Errc::device_error, "", "", "hipGetDeviceCount", hipfile::Error::from_hip(e));
  if (hipError_t e = hipGetDevice(&d.current); e != hipSuccess)
    return fail(Errc::device_error, "", "", "hipGetDevice", hipfile::Error::from_hip(e));
  return d;
}

Result<int> checked_device(const Devices& devices, int device, const std::string& file, const std::string& tensor) {
  if (device < 0 || device >= devices.count)
    return fail(Errc::invalid_argument, file, tensor,
                "device " + std::to_string(device) + " does not exist (" + std::to_string(devices.count) + " found)");
  return device;
}

}  // namespace hipfile::safetensors::detail
