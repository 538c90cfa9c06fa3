// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/fill.hpp
 * @brief fill(): a checkpoint's tensors, or slices of them, straight into memory the caller
 *        owns (a model's parameters, an engine's buffers), device or host, with no
 *        intermediate device allocation.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "export.hpp"
#include "load.hpp"
#include "loaded.hpp"
#include "slice.hpp"

namespace hipfile::safetensors {

/// Where one tensor (or a slice of it) goes.
struct Destination {
  std::string name;                  ///< the tensor's name in the checkpoint
  void* data = nullptr;              ///< device memory, or host memory (pageable or pinned)
  std::size_t bytes = 0;             ///< its size: must be exactly the tensor's (or the slice's) bytes
  std::optional<Slice> slice;        ///< only this range of one dimension (default: the whole tensor)
  std::optional<Dtype> dtype;        ///< when set, must be the tensor's dtype (dtype_mismatch)
  std::optional<std::vector<std::uint64_t>> shape;  ///< when set, must be the (sliced) shape (shape_mismatch)
};

/// How fill() reads.
struct FillOptions {
  /// A destination naming no tensor of the checkpoint is skipped (listed in FillResult::missing)
  /// instead of failing with no_such_tensor.
  bool allow_missing = false;
  /// A tensor of the checkpoint that no destination names is left unread (listed in
  /// FillResult::unexpected) instead of failing with unexpected_tensor.
  bool allow_unexpected = false;
  /// Reads in flight at once: destinations are taken in file order by this many threads, each
  /// read spread by the library over its own workers. 1 to kMaxParallelReads.
  unsigned parallel_reads = 4;
  /// Called as each destination is complete, with its index in the destinations, from the
  /// reading threads, one call at a time: what it names may be used from then on.
  std::function<void(std::size_t)> on_filled;
  /// Called after each read with (bytes read so far, bytes to read), one call at a time.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  /// Read through O_DIRECT descriptors (where the file system allows), as LoadOptions::direct.
  bool direct = false;
};

/// What fill() did.
struct FillResult {
  /// reads, bytes_read (what was read from the files: slices count the rows they span) and
  /// where the time went (allocate_seconds is 0: nothing is allocated but staging).
  LoadStats stats;
  std::vector<std::string> missing;     ///< destinations' names the checkpoint lacks (allow_missing)
  std::vector<std::string> unexpected;  ///< tensors no destination named (allow_unexpected), in checkpoint order
  std::map<int, std::uint64_t> device_bytes;  ///< bytes placed in each device's memory; -1: host memory
};

/**
 * @brief Reads every destination's tensor (or slice) into its memory.
 *
 * Checks everything before reading anything: each name (no_such_tensor; a name twice is
 * invalid_argument), each slice (invalid_slice), dtype (dtype_mismatch), shape and size
 * (shape_mismatch), the tensors no destination takes (unexpected_tensor), the shards' sizes
 * (shard_changed). A whole tensor, or a slice of contiguous bytes, is one hipFileRead straight
 * into its destination. A slice of another dimension reads the rows that hold it (from the first
 * row's slice to the last row's, never more) into pinned staging, and a 2-D copy
 * (hipMemcpy2DAsync) places the slice's part of each row. Nothing outside [data, data + bytes)
 * of any destination is written. After a failure the destinations hold what was read so far.
 */
[[nodiscard]] HIPFILE_ST_API Result<FillResult> fill(const Checkpoint& checkpoint,
                                                    std::span<const Destination> destinations,
                                                    const FillOptions& options = {});

}  // namespace hipfile::safetensors
