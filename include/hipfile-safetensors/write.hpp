// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/write.hpp
 * @brief write(): tensors in device (or host) memory into a safetensors file that the
 *        safetensors Python package reads unchanged.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"
#include "export.hpp"
#include "loaded.hpp"

namespace hipfile::safetensors {

/// One tensor to write: its bytes are in device memory or host memory.
struct TensorData {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> data;
};

struct WriteOptions {
  /// The header's __metadata__ (e.g. {"format": "pt"}); left out when empty.
  std::map<std::string, std::string> metadata;
  /// Tensors written at once (each hipFileWrite is itself parallel inside the library); at
  /// most 64 are used.
  unsigned threads = 4;
};

/// The tensors of @p loaded as TensorData views (to write a loaded checkpoint back).
[[nodiscard]] HIPFILE_ST_API std::vector<TensorData> tensors_of(const LoadedCheckpoint& loaded);

/**
 * @brief Writes @p tensors to @p path (created or replaced).
 *
 * Everything is checked before the file is touched: names unique, non-empty, UTF-8; data size
 * = shape × dtype size; each tensor in device memory inside one allocation; the header within
 * the format's kMaxHeaderBytes. The file is written as PATH.tmp.RANDOM (created exclusively,
 * never through a link), synced, and renamed over @p path only when complete, then the folder
 * is synced: a failure, or a power loss, never leaves a partial checkpoint under the name nor
 * destroys the old one. The new file keeps the permission bits of the file it replaces (a new
 * name: 0666 less the umask). The header is written with pwrite, the tensor data with
 * hipFileWrite from the tensors' memory, several tensors at once.
 */
[[nodiscard]] HIPFILE_ST_API Result<void> write(const std::string& path, std::span<const TensorData> tensors,
                                                const WriteOptions& options = {});

}  // namespace hipfile::safetensors
