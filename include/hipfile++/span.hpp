// SPDX-License-Identifier: MIT
/**
 * @file span.hpp
 * @brief What every hipfile++ I/O call shares: the one offset type (hipfile::Offset) and the
 *        typed spans it accepts (any trivially copyable element type).
 *
 * Every read and write in File, io.hpp, Batch, Pending and AsyncIo takes a `std::span<T>` of a
 * trivially copyable `T` (its byte count is `size_bytes()`) and an Offset. Nothing here touches
 * the memory, so device spans (DeviceBuffer::as<float>()) are fine.
 */
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>

namespace hipfile {

/**
 * @brief A file offset (and a buffer offset inside a registration), in bytes.
 *
 * Signed 64-bit, the same type as `off_t`/`hoff_t` on 64-bit Linux, so a value from lseek or
 * the C API passes unchanged. A negative offset, or an offset + length beyond INT64_MAX, is
 * refused before any C call with the code the C call underneath gives a C caller, and a
 * message that names the offset ("the file offset -4096 is negative"):
 * - File::read/write/read_exact/write_all and io.hpp (hipFileRead/hipFileWrite): EINVAL, a
 *   system error (is_system(), sys_errno() == EINVAL), as hipFile 0.4 and later report it;
 * - Batch, File::read_async/write_async (a batch entry) and AsyncIo (hipFileBatchIOSubmit,
 *   hipFileReadAsync/WriteAsync): hipFileInvalidValue (op()).
 */
using Offset = std::int64_t;

static_assert(sizeof(off_t) == sizeof(Offset), "hipfile++ needs a 64-bit off_t (_FILE_OFFSET_BITS=64)");

/// Element types that I/O accepts: trivially copyable (bytes are the object representation).
template <class T>
concept Transferable = std::is_trivially_copyable_v<T>;

/// A destination span: trivially copyable, non-const elements.
template <class T>
concept Writable = Transferable<T> && !std::is_const_v<T>;

namespace detail {

/// The bytes of a destination span (the element type only sets the length).
template <Writable T, std::size_t N>
[[nodiscard]] std::span<std::byte> writable_bytes(std::span<T, N> s) noexcept {
  return {reinterpret_cast<std::byte*>(s.data()), s.size_bytes()};
}
/// The bytes of a source span.
template <Transferable T, std::size_t N>
[[nodiscard]] std::span<const std::byte> readable_bytes(std::span<T, N> s) noexcept {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size_bytes()};
}

/// True when [offset, offset + length) is a valid file range (non-negative, no overflow).
[[nodiscard]] constexpr bool valid_range(Offset offset, std::size_t length) noexcept {
  if (offset < 0) return false;
  const auto room = static_cast<std::uint64_t>(std::numeric_limits<Offset>::max() - offset);
  return static_cast<std::uint64_t>(length) <= room;
}

}  // namespace detail
}  // namespace hipfile
