// SPDX-License-Identifier: MIT
/**
 * @file devices.hpp
 * @brief Internal: the devices a load may place tensors on, and the check of one. Not part of
 *        the API.
 */
#pragma once

#include <string>

#include <hipfile-safetensors/error.hpp>

namespace hipfile::safetensors::detail {

/// How many devices the runtime has, and the calling thread's current one.
struct Devices {
  int count = 0;
  int current = 0;
};

/// The runtime's devices (device_error naming the HIP call that failed).
Result<Devices> runtime_devices();

/// @p device, checked to exist: invalid_argument "device N does not exist (M found)" naming
/// @p file and @p tensor otherwise.
Result<int> checked_device(const Devices& devices, int device, const std::string& file = "",
                           const std::string& tensor = "");

}  // namespace hipfile::safetensors::detail
