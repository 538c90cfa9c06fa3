// SPDX-License-Identifier: MIT
// The read plan of load(): groups, merged reads, and their pieces.
#include "plan.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace hipfile::safetensors::detail {

namespace {

// Cuts each read of @p g into pieces of whole MiB, @p parallel of them per read, none longer
// than @p max_read. Returns the bytes the reads move.
std::uint64_t cut_reads(Group& g, std::uint64_t max_read, unsigned parallel) {
  std::uint64_t read_bytes = 0;
  std::vector<Read> cut;
  for (const Read& r : g.reads) {
    read_bytes += r.bytes;
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
  return read_bytes;
}

}  // namespace

Plan make_plan(const std::vector<TensorInfo>& tensors, const std::vector<std::size_t>& selected,
               const std::vector<int>& devices, std::uint64_t max_read, unsigned parallel) {
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
  for (auto& g : plan.groups) plan.read_bytes += cut_reads(g, max_read, parallel);
  return plan;
}

}  // namespace hipfile::safetensors::detail
