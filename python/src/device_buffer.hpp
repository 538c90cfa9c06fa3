// SPDX-License-Identifier: MIT
// hipfile.DeviceBuffer: device memory owned by a Python object (hipfile::DeviceBuffer inside).
#pragma once

#include <hipfile++/device_buffer.hpp>

#include <cstddef>
#include <utility>

namespace hipfile::py_binding {

class PyDeviceBuffer {
 public:
  PyDeviceBuffer(std::size_t nbytes, int device);
  /// Takes over @p memory (hipMalloc'ed on @p device), to be hipFreed by this object.
  PyDeviceBuffer(DeviceBuffer memory, std::size_t nbytes, int device) noexcept
      : buffer_(std::move(memory)), nbytes_(nbytes), device_(device) {}

  [[nodiscard]] void* data() const noexcept { return buffer_.data(); }
  [[nodiscard]] std::size_t nbytes() const noexcept { return nbytes_; }
  [[nodiscard]] int device() const noexcept { return device_; }

 private:
  DeviceBuffer buffer_;
  std::size_t nbytes_ = 0;  // kept apart: DeviceBuffer reports 0 bytes for a 0-byte allocation
  int device_ = 0;
};

}  // namespace hipfile::py_binding
