// SPDX-License-Identifier: MIT
#include "slices.hpp"

#include <algorithm>

namespace hipfile::tools::load {

namespace sts = hipfile::safetensors;

namespace {

// Scalars and elements packed below a byte (F4, F6) have no slice that starts on a byte.
bool sliceable(const sts::TensorInfo& t) { return !t.shape.empty() && sts::dtype_bits(t.dtype) % 8 == 0; }

// --slice: cut to the tensor's dimension as Python slicing does; none where DIM is not one.
std::optional<sts::Slice> fixed_slice(const sts::TensorInfo& t, const SliceSpec& s) {
  if (s.dim >= t.shape.size()) return std::nullopt;
  const std::uint64_t length = t.shape[s.dim];
  const std::uint64_t start = std::min(s.start, length);
  return sts::Slice{s.dim, start, std::max(start, std::min(s.stop, length))};
}

sts::Parallel parallel_of(Layout l) {
  switch (l) {
    case Layout::row: return sts::Parallel::row;
    case Layout::vocabulary: return sts::Parallel::vocabulary;
    default: return sts::Parallel::column;
  }
}

sts::Result<std::optional<sts::Slice>> slice_of(const sts::TensorInfo& t, const Options& o) {
  if (!sliceable(t)) return std::optional<sts::Slice>{};
  if (o.slice) return fixed_slice(t, *o.slice);
  auto s = sts::tensor_parallel_slice(t.shape, parallel_of(o.layout.value_or(Layout::column)),
                                      static_cast<unsigned>(o.rank), static_cast<unsigned>(o.world_size));
  if (!s) return hipfile::unexpected(s.error());
  return std::optional<sts::Slice>{*s};
}

}  // namespace

sts::Result<std::vector<Part>> plan_parts(const sts::Checkpoint& c, const std::vector<char>& chosen,
                                          const Options& o) {
  std::vector<Part> parts;
  for (std::size_t i = 0; i < c.tensors().size(); ++i) {
    if (!chosen[i]) continue;
    const sts::TensorInfo& t = c.tensors()[i];
    auto slice = slice_of(t, o);
    if (!slice) return hipfile::unexpected(slice.error());
    Part p{&t, *slice, sts::whole_geometry(t)};
    if (p.slice) {
      auto g = sts::slice_geometry(t, *p.slice);
      if (!g) return hipfile::unexpected(g.error());
      p.geometry = std::move(*g);
    }
    parts.push_back(std::move(p));
  }
  return parts;
}

}  // namespace hipfile::tools::load
