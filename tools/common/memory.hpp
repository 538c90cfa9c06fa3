// SPDX-License-Identifier: MIT
// An I/O buffer of one of the three kinds the tools measure (device, pinned host, pageable host),
// owned, with copies to and from host memory so verification works whatever the kind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hipfile::tools {

enum class MemKind { Device, Pinned, Pageable };

std::string_view mem_kind_name(MemKind kind);

class Memory {
 public:
  Memory() = default;
  /// Allocates `size` bytes (page aligned for the host kinds, so O_DIRECT works) on `device`.
  /// Throws Failure on allocation errors.
  Memory(MemKind kind, std::size_t size, int device);
  Memory(Memory&& other) noexcept;
  Memory& operator=(Memory&& other) noexcept;
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory();

  void* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }
  MemKind kind() const noexcept { return kind_; }
  int device() const noexcept { return device_; }

  /// Copies host bytes into [offset, offset + n) of this buffer (hipMemcpy for device memory).
  void upload(std::size_t offset, const void* src, std::size_t n) const;
  /// Copies [offset, offset + n) of this buffer to host memory.
  void download(void* dst, std::size_t offset, std::size_t n) const;
  /// Fills [0, size) with the file pattern of [file_offset, file_offset + size).
  void fill_with_pattern(std::uint64_t file_offset) const;

 private:
  void reset() noexcept;

  void* ptr_ = nullptr;
  std::size_t size_ = 0;
  MemKind kind_ = MemKind::Pageable;
  int device_ = 0;
};

}  // namespace hipfile::tools
