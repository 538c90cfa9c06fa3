// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/load.hpp
 * @brief load(): a checkpoint's tensors (all, or a subset) into device memory, every shard
 *        and device read in parallel.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "error.hpp"
#include "export.hpp"
#include "loaded.hpp"

namespace hipfile::safetensors {

/// The largest LoadOptions::parallel_reads: more is refused (invalid_argument), as it could
/// only cut the reads into pieces too small to be worth a call each.
inline constexpr unsigned kMaxParallelReads = 64;

/// What load() loads and where.
struct LoadOptions {
  /// The device of every tensor; -1: the calling thread's current device (any other negative
  /// value is refused: invalid_argument, device does not exist).
  int device = -1;
  /// When set, the device of each tensor (overrides device), e.g. layers split over GPUs.
  std::function<int(const TensorInfo&)> placement;
  /// When not empty, only these tensors (each must exist: no_such_tensor otherwise).
  std::vector<std::string> names;
  /// When set, only the tensors it accepts (after names).
  std::function<bool(const TensorInfo&)> filter;
  /// When set, called after each read with (bytes read so far, bytes to read), from the
  /// reading threads, one call at a time. Reads are then cut into progress_step pieces.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  std::uint64_t progress_step = std::uint64_t{1} << 30;
  /// hipFileRead calls in flight per shard and device: 1 (the default) reads each contiguous
  /// range with one call, which the library spreads over its workers itself; N > 1 cuts it
  /// into N pieces read at once (more requests queued at a slow disk). At most
  /// kMaxParallelReads; the reading threads of all groups together are at most 64,
  /// taking the reads in turn.
  unsigned parallel_reads = 1;
  /// Read through an O_DIRECT descriptor of each shard (where its file system allows it).
  /// The library still serves what is in the page cache from there; what is not comes from
  /// the disk without passing through the page cache. Default: buffered (bench/RESULTS.md).
  bool direct = false;
};

/**
 * @brief Loads the selected tensors of @p checkpoint into new device memory.
 *
 * Checks first (the options, the selection, the devices, the shards' sizes), then allocates one buffer
 * per (shard, device), then reads: one hipFileRead per shard and device where the tensors are
 * contiguous in the file (a full load), all groups at once on their own threads. On any
 * failure nothing stays allocated. Each tensor's device address is congruent to its offset in
 * the shard's data section modulo 256 (allocations are 256-byte aligned), so tensors that the
 * file aligns to their element size (as safetensors and write() do) are aligned in memory.
 */
[[nodiscard]] HIPFILE_ST_API Result<LoadedCheckpoint> load(const Checkpoint& checkpoint, const LoadOptions& options = {});

/// Checkpoint::open(path), then load().
[[nodiscard]] HIPFILE_ST_API Result<LoadedCheckpoint> load(const std::string& path, const LoadOptions& options = {});

}  // namespace hipfile::safetensors
