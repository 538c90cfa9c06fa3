// SPDX-License-Identifier: MIT
// Slices of one dimension: their place in the file, and the share of each tensor-parallel rank.
#include <hipfile-safetensors/slice.hpp>

#include <string>

#include "fail.hpp"

namespace hipfile::safetensors {

SliceGeometry whole_geometry(const TensorInfo& t) {
  return SliceGeometry{t.shape, t.file_offset, 1, t.bytes(), t.bytes()};
}

Result<SliceGeometry> slice_geometry(const TensorInfo& t, const Slice& s) {
  using detail::fail;
  if (s.dim >= t.shape.size())
    return fail(Errc::invalid_slice, "", t.name,
                "dimension " + std::to_string(s.dim) + " of a tensor of shape " + shape_text(t.shape));
  if (s.start > s.stop || s.stop > t.shape[s.dim])
    return fail(Errc::invalid_slice, "", t.name,
                "slice " + std::to_string(s.start) + ":" + std::to_string(s.stop) + " of dimension " +
                    std::to_string(s.dim) + ", which is " + std::to_string(t.shape[s.dim]) + " long (shape " +
                    shape_text(t.shape) + ")");
  if (dtype_bits(t.dtype) % 8 != 0)
    return fail(Errc::invalid_slice, "", t.name,
                "a slice of " + std::string(dtype_name(t.dtype)) + " elements, which are packed below a byte");
  // The header's validation bounds every product here by the tensor's byte size.
  std::uint64_t outer = 1, inner = dtype_bits(t.dtype) / 8;
  for (std::size_t d = 0; d < s.dim; ++d) outer *= t.shape[d];
  for (std::size_t d = s.dim + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
  SliceGeometry g;
  g.shape = t.shape;
  g.shape[s.dim] = s.stop - s.start;
  g.pitch = t.shape[s.dim] * inner;
  g.width = (s.stop - s.start) * inner;
  g.rows = g.width == 0 ? 0 : outer;
  g.file_offset = t.file_offset + s.start * inner;
  return g;
}

Result<Slice> rank_share(std::size_t dim, std::uint64_t length, unsigned rank, unsigned world_size) {
  if (world_size == 0 || rank >= world_size)
    return detail::fail(Errc::invalid_argument, "", "",
                        "rank " + std::to_string(rank) + " of a world of " + std::to_string(world_size));
  const std::uint64_t share = length / world_size + (length % world_size != 0);
  // share * rank and start + share pass 2^64 for lengths above 2^63: a rank whose share would
  // start past the length starts at it, and the stop is the share or what is left, if less.
  const std::uint64_t start = share == 0 || rank > length / share ? length : share * rank;
  return Slice{dim, start, start + std::min(share, length - start)};
}

Result<Slice> tensor_parallel_slice(const std::vector<std::uint64_t>& shape, Parallel layout, unsigned rank,
                                    unsigned world_size) {
  if (shape.empty())
    return detail::fail(Errc::invalid_slice, "", "", "a scalar has no dimension to split over ranks");
  const std::size_t dim = layout == Parallel::row ? shape.size() - 1 : 0;
  auto share = rank_share(dim, shape[dim], rank, world_size);  // checks rank and world_size
  const bool whole = layout == Parallel::replicated || (layout == Parallel::row && shape.size() == 1);
  if (share && whole) return Slice{dim, 0, shape[dim]};
  return share;
}

}  // namespace hipfile::safetensors
