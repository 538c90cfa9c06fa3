// SPDX-License-Identifier: MIT
/**
 * @file device_buffer.hpp
 * @brief hipfile::DeviceBuffer: an owned, untyped hipMalloc allocation.
 */
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "error.hpp"

namespace hipfile {

/**
 * @brief Owns `size()` bytes of device memory from hipMalloc on `device()`; hipFree on
 *        destruction.
 *
 * The views (`bytes()`, `as<T>()`, `data()`) hold *device addresses*: pass them to hipfile++
 * I/O, hipMemcpy or kernels, never dereference them on the host. The buffer is untyped because
 * the element type does not matter for ownership; `as<T>()` gives a typed view.
 *
 * Ownership: move-only; the empty (default or moved-from) state owns nothing. Deregister any
 * hipFile registration of this memory before the buffer dies (RegisteredBuffer orders this for
 * you). Thread safety: one object must not be mutated concurrently; the views may be used from
 * any thread while the owner lives.
 */
class DeviceBuffer {
 public:
  /// Empty: owns nothing.
  DeviceBuffer() noexcept = default;

  /**
   * @brief hipMalloc of @p bytes on @p device (-1: the calling thread's current device).
   *
   * The calling thread's current device is restored before returning. Zero bytes gives an
   * empty buffer (nothing allocated) that remembers the device.
   * @return the owner, or Error::from_hip(...) of the failing HIP call.
   */
  [[nodiscard]] static Result<DeviceBuffer> allocate(std::size_t bytes, int device = -1) noexcept {
    int current = 0;
    if (hipError_t e = hipGetDevice(&current); e != hipSuccess) return unexpected(Error::from_hip(e));
    const int target = device < 0 ? current : device;
    if (target != current) {
      if (hipError_t e = hipSetDevice(target); e != hipSuccess) return unexpected(Error::from_hip(e));
    }
    void* p = nullptr;
    hipError_t e = bytes == 0 ? hipSuccess : hipMalloc(&p, bytes);
    if (target != current) (void)hipSetDevice(current);
    if (e != hipSuccess) return unexpected(Error::from_hip(e).in(Context{Operation::allocate, nullptr, {}, bytes}));
    return DeviceBuffer(p, p ? bytes : 0, target);
  }

  /**
   * @brief Takes ownership of @p ptr (from hipMalloc, @p bytes long, on @p device); it will be
   *        hipFree'd. Use with memory from release() or from C code.
   */
  [[nodiscard]] static DeviceBuffer adopt(void* ptr, std::size_t bytes, int device) noexcept {
    return DeviceBuffer(ptr, ptr ? bytes : 0, device);
  }

  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)),
        device_(std::exchange(o.device_, -1)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
      device_ = std::exchange(o.device_, -1);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// hipFree; never throws, ignores its status.
  ~DeviceBuffer() { reset(); }

  /// Frees the memory now (status ignored); the object becomes empty.
  void reset() noexcept {
    size_ = 0;
    device_ = -1;
    if (void* p = std::exchange(ptr_, nullptr)) (void)hipFree(p);
  }
  /// Frees the memory now and reports hipFree's status; empty afterwards.
  [[nodiscard]] Result<void> free() noexcept {
    size_ = 0;
    device_ = -1;
    void* p = std::exchange(ptr_, nullptr);
    if (!p) return {};
    if (hipError_t e = hipFree(p); e != hipSuccess) return unexpected(Error::from_hip(e));
    return {};
  }
  /// Gives up ownership: the caller must hipFree the returned pointer. Empty afterwards.
  [[nodiscard]] void* release() noexcept {
    size_ = 0;
    device_ = -1;
    return std::exchange(ptr_, nullptr);
  }

  /// True while memory is owned.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

  /// The device address (nullptr when empty).
  [[nodiscard]] void* data() const noexcept { return ptr_; }
  /// Size in bytes.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// The device the memory lives on (-1 when empty).
  [[nodiscard]] int device() const noexcept { return device_; }

  /// The whole allocation as bytes (device addresses: pass on, never dereference).
  [[nodiscard]] std::span<std::byte> bytes() noexcept { return {static_cast<std::byte*>(ptr_), size_}; }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept {
    return {static_cast<const std::byte*>(ptr_), size_};
  }

  /// A typed view of the first `size() / sizeof(T)` elements (device addresses).
  template <class T>
  [[nodiscard]] std::span<T> as() noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");
    return {static_cast<T*>(ptr_), size_ / sizeof(T)};
  }
  template <class T>
  [[nodiscard]] std::span<const T> as() const noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "device memory holds trivially copyable types");
    return {static_cast<const T*>(ptr_), size_ / sizeof(T)};
  }

 private:
  DeviceBuffer(void* p, std::size_t n, int dev) noexcept : ptr_(p), size_(n), device_(dev) {}

  void* ptr_ = nullptr;
  std::size_t size_ = 0;
  int device_ = -1;
};

}  // namespace hipfile
