// SPDX-License-Identifier: MIT
/**
 * @file plan.hpp
 * @brief Internal: where each selected tensor goes in device memory and which reads fill it.
 *        Not part of the API.
 *
 * One group per (shard, device): one allocation, filled by as few large reads as possible.
 * Tensors of a group whose file ranges are at most kMergeGap apart share one read (the bytes
 * between them are read too), because one large hipFileRead is the engine's fast path and
 * each call has a fixed cost. A full load of a shard onto one device is one read.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <hipfile-safetensors/header.hpp>

namespace hipfile::safetensors::detail {

/// Gaps up to this many bytes between tensors of one group are read rather than skipped.
inline constexpr std::uint64_t kMergeGap = 1u << 20;
/// A tensor's device address is congruent to its data-section offset modulo this, so the
/// file's alignment (a multiple of the element size, in files safetensors writes) carries over.
inline constexpr std::uint64_t kAlignment = 256;
inline constexpr std::size_t kNoOffset = std::numeric_limits<std::size_t>::max();

struct Read {
  std::uint64_t file_offset = 0;
  std::size_t alloc_offset = 0;
  std::size_t bytes = 0;
  std::size_t first_tensor = 0;  // checkpoint index of the first tensor it fills (for errors)
};

struct Group {
  std::size_t shard = 0;
  int device = 0;
  std::size_t bytes = 0;  // allocation size
  std::vector<Read> reads;
  std::uint64_t run_begin = 0;  // data-section range of the last read, while planning
  std::uint64_t run_end = 0;
};

struct Placement {
  std::size_t tensor = 0;            // checkpoint index
  std::size_t group = 0;
  std::size_t alloc_offset = kNoOffset;  // kNoOffset for a tensor of zero bytes
};

struct Plan {
  std::vector<Group> groups;
  std::vector<Placement> placed;
  std::uint64_t read_bytes = 0;  // what the reads move, merged gaps included
};

/**
 * @brief Plans tensors @p selected (checkpoint indices in checkpoint order: by shard, then
 *        offset) onto @p devices (one per selected tensor). Each read is cut into
 *        @p parallel pieces of whole MiB (read at the same time), and none is longer than
 *        @p max_read (pieces for progress reports).
 */
Plan make_plan(const std::vector<TensorInfo>& tensors, const std::vector<std::size_t>& selected,
               const std::vector<int>& devices, std::uint64_t max_read, unsigned parallel = 1);

}  // namespace hipfile::safetensors::detail
