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
 * @brief Whether write() may put a checkpoint at @p path: a missing name (which it creates) or
 *        a regular file (which it replaces). write() asks this before it creates anything and
 *        again just before its rename. Anything else at @p path is invalid_argument naming what
 *        is there: a FIFO, socket, character or block device, or directory, which the rename
 *        would replace (as root, /dev/null itself) or refuse only after the whole checkpoint
 *        was written; and a symbolic link, which is neither replaced nor written through (a
 *        rename replaces the link, not its target; doc/safetensors.md says why it is not
 *        followed). An empty path is invalid_argument; a path lstat(2) cannot examine (other
 *        than a missing one) is io_error with its errno.
 */
[[nodiscard]] HIPFILE_ST_API Result<void> check_destination(const std::string& path);

/**
 * @brief Writes @p tensors to @p path (created or replaced).
 *
 * Everything is checked before the file is touched: names unique, non-empty, UTF-8; data size
 * = shape × dtype size; each tensor in device memory inside one allocation; the header within
 * the format's kMaxHeaderBytes; @p path missing or a regular file (check_destination()). The
 * file is written as PATH.tmp.RANDOM (created exclusively, never through a link), synced, and
 * renamed over @p path only when complete, then the folder is synced: a failure, or a power
 * loss, never leaves a partial checkpoint under the name nor destroys the old one. The new file
 * keeps the permission bits of the file it replaces (a new name: 0666 less the umask). The
 * header is written with pwrite, the tensor data with hipFileWrite from the tensors' memory,
 * several tensors at once.
 */
[[nodiscard]] HIPFILE_ST_API Result<void> write(const std::string& path, std::span<const TensorData> tensors,
                                                const WriteOptions& options = {});

}  // namespace hipfile::safetensors
