// SPDX-License-Identifier: MIT
/**
 * @file slice_copy.hpp
 * @brief Internal: the rows of a strided slice, read into pinned staging and placed with one
 *        2-D copy. Not part of the API.
 */
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include <hipfile-safetensors/error.hpp>

namespace hipfile::safetensors::detail {

/// Staging per reading thread: blocks of rows are cut to fit it (one row at least, whatever
/// its length).
inline constexpr std::uint64_t kStagingBytes = std::uint64_t{8} << 20;

/// The device whose memory @p p is, or -1 for host memory (pinned, registered or unknown to HIP).
int device_of(const void* p);

/// @p rows rows of @p width bytes, each @p pitch bytes after the one before in file @p fd from
/// @p file_offset; they go to @p dst, one after the other.
struct RowBlock {
  int fd = -1;
  std::uint64_t file_offset = 0;
  std::uint64_t rows = 0;
  std::uint64_t width = 0;
  std::uint64_t pitch = 0;
  std::byte* dst = nullptr;
};

/**
 * @brief One thread's pinned staging and stream. copy() reads the block's span (first row's
 *        start to last row's end) with pread into staging, then places the rows: one
 *        hipMemcpy2DAsync on this thread's stream for device memory (on the memory's device; a
 *        blocking stream, so ordered after the NULL stream's work as hipFileRead is), a memcpy
 *        per row for host memory.
 */
class SliceCopier {
 public:
  SliceCopier() = default;
  ~SliceCopier();
  SliceCopier(const SliceCopier&) = delete;
  SliceCopier& operator=(const SliceCopier&) = delete;

  /// @p file and @p tensor name the failure, if any.
  Result<void> copy(const RowBlock& block, const std::string& file, const std::string& tensor);

 private:
  Result<void> reserve(std::size_t bytes, const std::string& file, const std::string& tensor);
  Result<void> to_device(const RowBlock& block, int device, const std::string& file, const std::string& tensor);

  void* staging_ = nullptr;
  std::size_t staging_bytes_ = 0;
  hipStream_t stream_ = nullptr;
  int stream_device_ = -1;
};

}  // namespace hipfile::safetensors::detail
