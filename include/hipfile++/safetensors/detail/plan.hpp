// SPDX-License-Identifier: MIT
/**
 * @file safetensors/detail/plan.hpp
 * @brief Internal: where each selected tensor goes in device memory and which reads fill it.
 *        Not part of the API.
 *
 * One group per (shard, device): one allocation, filled by as few large reads as possible.
 * Tensors of a group whose file ranges are at most kMergeGap apart share one read (the bytes
 * between them are read too), because one large hipFileRead is the engine's fast path and
 * each call has a fixed cost. A full load of a shard onto one device is one read.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "../header.hpp"

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
inline Plan make_plan(const std::vector<TensorInfo>& tensors, const std::vector<std::size_t>& selected,
                      const std::vector<int>& devices, std::uint64_t max_read, unsigned parallel = 1) {
  Plan plan;
  std::map<std::pair<std::size_t, int>, std::size_t> group_of;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const TensorInfo& t = tensors[selected[i]];
    auto [it, fresh] = group_of.emplace(std::pair(t.shard, devices[i]), plan.groups.size());
    if (fresh) plan.groups.push_back(Group{t.shard, devices[i], 0, {}, 0, 0});
    Group& g = plan.groups[it->second];
    Placement p{selected[i], it->second, kNoOffset};
    if (t.bytes() > 0) {
      if (!g.reads.empty() && t.begin >= g.run_end && t.begin - g.run_end <= kMergeGap) {
        Read& r = g.reads.back();  // extend the current read over the gap to this tensor
        p.alloc_offset = r.alloc_offset + static_cast<std::size_t>(t.begin - g.run_begin);
        r.bytes = static_cast<std::size_t>(t.end - g.run_begin);
      } else {
        const std::size_t base = (g.bytes + kAlignment - 1) / kAlignment * kAlignment;
        p.alloc_offset = base + static_cast<std::size_t>(t.begin % kAlignment);
        g.reads.push_back(Read{t.file_offset, p.alloc_offset, static_cast<std::size_t>(t.bytes()), selected[i]});
        g.run_begin = t.begin;
      }
      g.run_end = t.end;
      g.bytes = g.reads.back().alloc_offset + g.reads.back().bytes;
    }
    plan.placed.push_back(p);
  }
  for (auto& g : plan.groups) {
    std::vector<Read> cut;
    for (const Read& r : g.reads) {
      plan.read_bytes += r.bytes;
      // A share rounded up, so a read smaller than parallel pieces is one piece, not bytes.
      const std::uint64_t ways = std::max(parallel, 1u);
      const std::uint64_t share = ((r.bytes + ways - 1) / ways + (1u << 20) - 1) >> 20 << 20;
      const std::uint64_t piece = std::max<std::uint64_t>(1, std::min(max_read, share));
      for (std::size_t done = 0; done < r.bytes;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(piece, r.bytes - done));
        cut.push_back(Read{r.file_offset + done, r.alloc_offset + done, n, r.first_tensor});
        done += n;
      }
    }
    g.reads = std::move(cut);
  }
  return plan;
}

}  // namespace hipfile::safetensors::detail
