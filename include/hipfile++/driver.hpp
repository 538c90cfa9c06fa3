// SPDX-License-Identifier: MIT
/**
 * @file driver.hpp
 * @brief hipfile::Driver: one scoped reference to the process-wide hipFile driver.
 */
#pragma once

#include <hipfile/hipfile.h>

#include <cstdint>
#include <utility>

#include "error.hpp"

namespace hipfile {

/**
 * @brief Owns one reference of the driver's reference count (hipFileDriverOpen on creation,
 *        hipFileDriverClose on destruction).
 *
 * Holding a Driver keeps the driver's staging memory and threads alive across files and
 * buffers, so they are not set up again for each registration. It is optional: registering a
 * file or buffer opens the driver implicitly. The last close releases every registration the
 * process still holds, so a Driver must outlive the File and Registration objects that depend
 * on it when it holds the last reference.
 *
 * Ownership: move-only; the empty (default or moved-from) state holds no reference.
 * Thread safety: distinct objects may be used from any threads; one object must not be
 * mutated concurrently. The driver itself is thread-safe.
 */
class Driver {
 public:
  /// Empty: holds no reference.
  Driver() noexcept = default;

  /// Opens the driver (or takes one more reference). @return the owner, or the C error.
  [[nodiscard]] static Result<Driver> open() noexcept {
    if (auto r = check(hipFileDriverOpen(), Operation::driver); !r) return unexpected(r.error());
    return Driver(true);
  }

  Driver(Driver&& other) noexcept : open_(std::exchange(other.open_, false)) {}
  Driver& operator=(Driver&& other) noexcept {
    if (this != &other) {
      reset();
      open_ = std::exchange(other.open_, false);
    }
    return *this;
  }
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;
  /// Drops the reference; never throws, ignores the close status.
  ~Driver() { reset(); }

  /// Drops the reference now (errors ignored); the object becomes empty.
  void reset() noexcept {
    if (std::exchange(open_, false)) (void)hipFileDriverClose();
  }
  /// Drops the reference now and reports hipFileDriverClose's status; empty afterwards.
  [[nodiscard]] Result<void> close() noexcept {
    if (!std::exchange(open_, false)) return {};
    return check(hipFileDriverClose(), Operation::driver);
  }
  /// Gives up ownership without closing: the caller now owes one hipFileDriverClose.
  /// @return whether a reference was held.
  [[nodiscard]] bool release() noexcept { return std::exchange(open_, false); }

  /// True while this object holds a reference.
  explicit operator bool() const noexcept { return open_; }

  /// The driver's reference count (hipFileUseCount); never opens the driver.
  [[nodiscard]] static std::int64_t use_count() noexcept { return hipFileUseCount(); }

  /// hipFileDriverGetProperties.
  [[nodiscard]] static Result<hipFileDriverProps_t> properties() noexcept {
    hipFileDriverProps_t props{};
    if (auto r = check(hipFileDriverGetProperties(&props), Operation::driver); !r) return unexpected(r.error());
    return props;
  }

 private:
  explicit Driver(bool open) noexcept : open_(open) {}
  bool open_ = false;
};

}  // namespace hipfile
