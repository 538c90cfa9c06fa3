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

namespace hipfile {

/**
 * @brief Reads @p length bytes at @p offset of @p file into a new DeviceBuffer on @p device
 *        (-1: the current device).
 * @return the buffer, exactly @p length bytes; Error::from_errno(ENODATA) when the file ends
 *         before offset + length; hipFileInvalidValue for an offset beyond INT64_MAX; or the
 *         error of the allocation or the read.
 */
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const File& file, std::uint64_t offset, std::size_t length,
                                                         int device = -1) noexcept {
  if (offset > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return std::unexpected(Error::from_op(hipFileInvalidValue));
  auto buf = DeviceBuffer::allocate(length, device);
  if (!buf) return std::unexpected(buf.error());
  if (auto r = file.read_exact(buf->bytes(), static_cast<std::int64_t>(offset)); !r)
    return std::unexpected(r.error());
  return std::move(*buf);
}

/// Reads all of @p file (its size() now) into a new DeviceBuffer on @p device. An empty file
/// gives an empty buffer.
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const File& file, int device = -1) noexcept {
  auto size = file.size();
  if (!size) return std::unexpected(size.error());
  if (*size > std::numeric_limits<std::size_t>::max()) return std::unexpected(Error::from_errno(EFBIG));
  return read_to_device(file, 0, static_cast<std::size_t>(*size), device);
}

/// Opens @p path read-only (O_DIRECT where supported) and reads all of it into a new
/// DeviceBuffer on @p device: `auto buf = hipfile::read_to_device("data.bin");`
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const char* path, int device = -1) noexcept {
  auto file = File::open(path, O_RDONLY);
  if (!file) return std::unexpected(file.error());
  return read_to_device(*file, device);
}
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const std::string& path, int device = -1) noexcept {
  return read_to_device(path.c_str(), device);
}

/// Opens @p path read-only and reads @p length bytes at @p offset into a new DeviceBuffer.
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const char* path, std::uint64_t offset, std::size_t length,
                                                         int device = -1) noexcept {
  auto file = File::open(path, O_RDONLY);
  if (!file) return std::unexpected(file.error());
  return read_to_device(*file, offset, length, device);
}
[[nodiscard]] inline Result<DeviceBuffer> read_to_device(const std::string& path, std::uint64_t offset,
                                                         std::size_t length, int device = -1) noexcept {
  return read_to_device(path.c_str(), offset, length, device);
}

/// Writes all of @p src (device or host memory) at @p offset of @p file (File::write_all).
[[nodiscard]] inline Result<void> write_from_device(const File& file, std::span<const std::byte> src,
                                                    std::int64_t offset = 0) noexcept {
  return file.write_all(src, offset);
}

/**
 * @brief Creates (or truncates) @p path with @p mode and writes all of @p src to it, then
 *        closes it and reports the close status: `hipfile::write_from_device("out.bin", buf.bytes());`
 */
[[nodiscard]] inline Result<void> write_from_device(const char* path, std::span<const std::byte> src,
                                                    mode_t mode = 0644) noexcept {
  auto file = File::open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
  if (!file) return std::unexpected(file.error());
  if (auto r = file->write_all(src, 0); !r) return std::unexpected(r.error());
  return file->close();
}
[[nodiscard]] inline Result<void> write_from_device(const std::string& path, std::span<const std::byte> src,
                                                    mode_t mode = 0644) noexcept {
  return write_from_device(path.c_str(), src, mode);
}

}  // namespace hipfile
