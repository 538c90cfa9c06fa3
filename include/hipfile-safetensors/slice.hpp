// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/slice.hpp
 * @brief A range of one dimension of a tensor (as `get_slice(name)[..., start:stop, ...]` takes
 *        it), its geometry in the file, and the slice one rank holds under tensor parallelism.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "error.hpp"
#include "export.hpp"
#include "header.hpp"

namespace hipfile::safetensors {

/// Elements [start, stop) of dimension dim; every other dimension whole.
struct Slice {
  std::size_t dim = 0;
  std::uint64_t start = 0;
  std::uint64_t stop = 0;
};

/**
 * @brief Where a slice's bytes lie in its file: @p rows runs of @p width bytes, the first at
 *        @p file_offset, each @p pitch bytes after the one before (the whole dimension's bytes
 *        of one index of the dimensions before it). rows == 1 (or width == pitch) is one
 *        contiguous range of rows × width bytes: a slice of the first dimension, or of a
 *        dimension all those before it are 1.
 */
struct SliceGeometry {
  std::vector<std::uint64_t> shape;  ///< the slice's shape: the tensor's, dimension dim stop - start long
  std::uint64_t file_offset = 0;
  std::uint64_t rows = 0;
  std::uint64_t width = 0;  ///< bytes of one row of the slice
  std::uint64_t pitch = 0;  ///< bytes from one row's start to the next one's in the file

  [[nodiscard]] std::uint64_t bytes() const noexcept { return rows * width; }
  [[nodiscard]] bool contiguous() const noexcept { return rows <= 1 || width == pitch; }
};

/**
 * @brief The geometry of @p slice of @p tensor; invalid_slice when dim is not one of the
 *        tensor's dimensions, start > stop, stop is past the dimension, or the dtype packs
 *        elements below a byte (F4, F6: a slice would not start on a byte).
 */
[[nodiscard]] HIPFILE_ST_API Result<SliceGeometry> slice_geometry(const TensorInfo& tensor, const Slice& slice);

/// The geometry of the whole of @p tensor (one contiguous range).
[[nodiscard]] HIPFILE_ST_API SliceGeometry whole_geometry(const TensorInfo& tensor);

/// How a layer's weight is split over the ranks of a tensor-parallel group.
enum class Parallel {
  column,      ///< column-parallel linear: output features (dimension 0 of [out, in]; a bias too)
  row,         ///< row-parallel linear: input features (the last dimension; a 1-D bias is whole)
  vocabulary,  ///< vocabulary-parallel embedding: rows of [vocab, hidden] (dimension 0)
  replicated,  ///< every rank holds all of it (norms, the biases of row-parallel layers)
};

/**
 * @brief Rank @p rank's share of @p length elements split over @p world_size ranks: shares of
 *        ceil(length / world_size), the last ones shorter or empty where it does not divide
 *        (with a length the world size divides, the equal shares Megatron-LM and vLLM use).
 *        invalid_argument when world_size is 0 or rank is not below it.
 */
[[nodiscard]] HIPFILE_ST_API Result<Slice> rank_share(std::size_t dim, std::uint64_t length, unsigned rank,
                                                     unsigned world_size);

/**
 * @brief The slice of a tensor of @p shape that rank @p rank of @p world_size holds under
 *        @p layout. A 1-D tensor under row, and replicated, give the whole tensor (as a slice of
 *        its split dimension); a scalar has no dimension to slice: invalid_slice (read it whole).
 */
[[nodiscard]] HIPFILE_ST_API Result<Slice> tensor_parallel_slice(const std::vector<std::uint64_t>& shape,
                                                                Parallel layout, unsigned rank, unsigned world_size);

}  // namespace hipfile::safetensors
