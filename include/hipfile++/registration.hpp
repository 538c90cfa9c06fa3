// SPDX-License-Identifier: MIT
/**
 * @file registration.hpp
 * @brief hipfile::Registration (a scoped hipFileBufRegister of a memory region) and
 *        hipfile::RegisteredBuffer (device memory together with its registration).
 */
#pragma once

#include <hipfile/hipfile.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>

#include "device_buffer.hpp"
#include "error.hpp"

namespace hipfile {

/**
 * @brief One hipFileBufRegister of a region `[base, base + size)`; hipFileBufDeregister(base)
 *        on destruction.
 *
 * A Registration **borrows** the memory: it does not own or free it, and it must be destroyed
 * (or reset) before the memory is freed. The region may be device memory or host memory
 * (pinned or pageable) as the library accepts it. I/O through a registration
 * (File::read(const Registration&, ...)) may use any subspan of the region.
 *
 * Ownership: move-only; the empty (default or moved-from) state holds no registration.
 * Thread safety: one object must not be mutated concurrently; I/O through a const reference
 * may run on several threads at once.
 */
class Registration {
 public:
  /// Empty: registers nothing.
  Registration() noexcept = default;

  /**
   * @brief hipFileBufRegister(region.data(), region.size(), flags). Opens the driver
   *        implicitly if it is closed.
   * @return the owner, or the C error (e.g. hipFileMemoryAlreadyRegistered,
   *         hipFileInvalidValue for a null base).
   */
  [[nodiscard]] static Result<Registration> create(std::span<const std::byte> region, int flags = 0) noexcept {
    if (auto r = check(hipFileBufRegister(region.data(), region.size(), flags)); !r)
      return unexpected(r.error().in(Context{Operation::register_buffer, nullptr, {}, region.size()}));
    return Registration(region.data(), region.size());
  }
  /// As create(std::as_bytes(region), flags), for typed spans.
  template <class T>
  [[nodiscard]] static Result<Registration> create(std::span<T> region, int flags = 0) noexcept {
    return create(std::as_bytes(region), flags);
  }
  /**
   * @brief Takes over an existing registration made with hipFileBufRegister(base, size, ...):
   *        it will be deregistered by this object.
   */
  [[nodiscard]] static Registration adopt(const void* base, std::size_t size) noexcept {
    return Registration(static_cast<const std::byte*>(base), size);
  }

  Registration(Registration&& o) noexcept
      : base_(std::exchange(o.base_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Registration& operator=(Registration&& o) noexcept {
    if (this != &o) {
      reset();
      base_ = std::exchange(o.base_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  /// Deregisters; never throws, ignores the status.
  ~Registration() { reset(); }

  /// Deregisters now (status ignored); the object becomes empty.
  void reset() noexcept {
    size_ = 0;
    if (const std::byte* b = std::exchange(base_, nullptr)) (void)hipFileBufDeregister(b);
  }
  /// Deregisters now and reports hipFileBufDeregister's status; empty afterwards.
  [[nodiscard]] Result<void> deregister() noexcept {
    size_ = 0;
    const std::byte* b = std::exchange(base_, nullptr);
    if (!b) return {};
    return check(hipFileBufDeregister(b), Operation::deregister_buffer);
  }
  /// Gives up ownership: the caller must hipFileBufDeregister the returned base. Empty after.
  [[nodiscard]] const void* release() noexcept {
    size_ = 0;
    return std::exchange(base_, nullptr);
  }

  /// True while a registration is held.
  explicit operator bool() const noexcept { return base_ != nullptr; }

  /// The registered base address (the key hipFileBufDeregister takes).
  [[nodiscard]] const void* base() const noexcept { return base_; }
  /// The registered length in bytes.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// The registered region (addresses of the borrowed memory; device addresses for device
  /// memory, so never dereference them on the host).
  [[nodiscard]] std::span<const std::byte> region() const noexcept { return {base_, size_}; }

  /// True when @p s lies entirely inside the registered region (an empty span at the end
  /// counts as inside). Always false for an empty Registration.
  [[nodiscard]] bool contains(std::span<const std::byte> s) const noexcept {
    if (!base_) return false;
    const auto b = reinterpret_cast<std::uintptr_t>(base_);
    const auto p = reinterpret_cast<std::uintptr_t>(s.data());
    return p >= b && p - b <= size_ && s.size() <= size_ - (p - b);
  }
  /// Offset of @p s from base(); meaningful only when contains(s).
  [[nodiscard]] Offset offset_of(std::span<const std::byte> s) const noexcept {
    return static_cast<Offset>(reinterpret_cast<std::uintptr_t>(s.data()) -
                                     reinterpret_cast<std::uintptr_t>(base_));
  }

 private:
  Registration(const std::byte* b, std::size_t n) noexcept : base_(b), size_(n) {}

  const std::byte* base_ = nullptr;
  std::size_t size_ = 0;
};

/**
 * @brief Device memory and its hipFile registration, destroyed in the right order
 *        (deregister first, hipFree second).
 *
 * The members are public for direct use; the declaration order is the destruction order in
 * reverse, and the move assignment keeps that order (the old registration goes first).
 * Ownership: move-only; owns both. Thread safety: as DeviceBuffer and Registration.
 */
struct RegisteredBuffer {
  DeviceBuffer buffer;        ///< the memory; destroyed second
  Registration registration;  ///< the registration of all of buffer; destroyed first

  RegisteredBuffer() noexcept = default;
  RegisteredBuffer(DeviceBuffer b, Registration r) noexcept : buffer(std::move(b)), registration(std::move(r)) {}
  RegisteredBuffer(RegisteredBuffer&&) noexcept = default;
  RegisteredBuffer& operator=(RegisteredBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      buffer = std::move(o.buffer);
      registration = std::move(o.registration);
    }
    return *this;
  }
  RegisteredBuffer(const RegisteredBuffer&) = delete;
  RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;
  ~RegisteredBuffer() = default;

  /// Deregisters, then frees, now; both members become empty.
  void reset() noexcept {
    registration.reset();
    buffer.reset();
  }
  /// True while memory is owned.
  explicit operator bool() const noexcept { return static_cast<bool>(buffer); }
  /// The whole buffer (device addresses).
  [[nodiscard]] std::span<std::byte> bytes() noexcept { return buffer.bytes(); }
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return buffer.bytes(); }
  [[nodiscard]] std::size_t size() const noexcept { return buffer.size(); }
};

/**
 * @brief DeviceBuffer::allocate(bytes, device), then Registration::create of all of it.
 *
 * On a registration failure the memory is freed again. Zero bytes is refused with
 * hipFileInvalidValue (there is nothing to register).
 */
[[nodiscard]] inline Result<RegisteredBuffer> make_registered_buffer(std::size_t bytes, int device = -1,
                                                                     int flags = 0) noexcept {
  if (bytes == 0) return unexpected(Error::from_op(hipFileInvalidValue));
  auto buf = DeviceBuffer::allocate(bytes, device);
  if (!buf) return unexpected(buf.error());
  auto reg = Registration::create(buf->bytes(), flags);
  if (!reg) return unexpected(reg.error());
  return RegisteredBuffer(std::move(*buf), std::move(*reg));
}

}  // namespace hipfile
