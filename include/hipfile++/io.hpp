// SPDX-License-Identifier: MIT
/**
 * @file io.hpp
 * @brief One-line helpers for the common jobs: a whole file (or a range of it) into a new
 *        DeviceBuffer, and a device span into a file.
 *
 * Each helper is a short composition of File, DeviceBuffer and read_exact()/write_all(); read
 * it to see the steps when you need a variation. Thread safety: the helpers share no state.
 */
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "device_buffer.hpp"
#include "error.hpp"
#include "file.hpp"
#include "span.hpp"

namespace hipfile {

/**
 * @brief Reads @p length bytes at @p offset of @p file into a new DeviceBuffer on @p device
 *        (-1: the current device).
 * @return the buffer, exactly @p length bytes; an end-of-file Error (is_eof()) when the file
 *         ends before offset + length; EINVAL (as File::read) for a negative offset or a range
 *         beyond INT64_MAX, explained with the offset; or the error of the allocation or the read.
 */
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const File& file, Offset offset, std::size_t length,
                                                         int device = -1) noexcept {
  if (!detail::valid_range(offset, length))
    return unexpected(detail::bad_range_errno(offset, length).in(file.context(Operation::read, offset, length)));
  auto buf = DeviceBuffer::allocate(length, device);
  if (!buf) return unexpected(buf.error().in(file.context(Operation::allocate, std::nullopt, length)));
  if (auto r = file.read_exact(buf->bytes(), offset); !r) return unexpected(r.error());
  return std::move(*buf);
}

/// Reads all of @p file (its size() now) into a new DeviceBuffer on @p device. An empty file
/// gives an empty buffer.
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const File& file, int device = -1) noexcept {
  auto size = file.size();
  if (!size) return unexpected(size.error());
  if (*size > std::numeric_limits<std::size_t>::max())
    return unexpected(Error::from_errno(EFBIG).in(file.context(Operation::read, 0, std::nullopt)));
  return read_to_device(file, 0, static_cast<std::size_t>(*size), device);
}

/// Opens @p path read-only (O_DIRECT where supported) and reads all of it into a new
/// DeviceBuffer on @p device: `auto buf = hipfile::read_to_device("data.bin");`
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const char* path, int device = -1) noexcept {
  auto file = File::open(path, O_RDONLY);
  if (!file) return unexpected(file.error());
  return read_to_device(*file, device);
}
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const std::string& path, int device = -1) noexcept {
  return read_to_device(path.c_str(), device);
}

/// Opens @p path read-only and reads @p length bytes at @p offset into a new DeviceBuffer.
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const char* path, Offset offset, std::size_t length,
                                                         int device = -1) noexcept {
  auto file = File::open(path, O_RDONLY);
  if (!file) return unexpected(file.error());
  return read_to_device(*file, offset, length, device);
}
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const std::string& path, Offset offset,
                                                         std::size_t length, int device = -1) noexcept {
  return read_to_device(path.c_str(), offset, length, device);
}

/// Writes all of @p src (device or host memory) at @p offset of @p file (File::write_all).
[[nodiscard]] inline Result<void> write_from_device(const File& file, std::span<const std::byte> src,
                                                    Offset offset = 0) noexcept {
  return file.write_all(src, offset);
}
/// write_from_device() of a typed span.
template <Transferable T, std::size_t N>
[[nodiscard]] Result<void> write_from_device(const File& file, std::span<T, N> src, Offset offset = 0) noexcept {
  return file.write_all(src, offset);
}

/**
 * @brief Creates (or truncates) @p path with @p mode and writes all of @p src to it, then
 *        closes it and reports the close status: `hipfile::write_from_device("out.bin", buf.bytes());`
 */
[[nodiscard]] inline Result<void> write_from_device(const char* path, std::span<const std::byte> src,
                                                    mode_t mode = 0644) noexcept {
  auto file = File::open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (!file) return unexpected(file.error());
  if (auto r = file->write_all(src, 0); !r) return unexpected(r.error());
  return file->close();
}
[[nodiscard]] inline Result<void> write_from_device(const std::string& path, std::span<const std::byte> src,
                                                    mode_t mode = 0644) noexcept {
  return write_from_device(path.c_str(), src, mode);
}

}  // namespace hipfile
