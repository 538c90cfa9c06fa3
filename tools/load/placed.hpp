// SPDX-License-Identifier: MIT
// What a pass left in GPU memory, whichever way it was read (load() of whole tensors, or fill()
// of slices into the tool's own buffer): one row per tensor, with where its bytes lie in the file,
// so that the report, --verify and HIPFILE_LOAD_CORRUPT need not know which.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hipfile::tools::load {

struct Placed {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;         // what is in memory: the slice's shape
  std::vector<std::uint64_t> tensor_shape;  // the tensor's, in the file
  std::optional<hipfile::safetensors::Slice> slice;  // none: the whole tensor
  int device = 0;
  void* data = nullptr;
  std::uint64_t bytes = 0;
  std::size_t shard = 0;
  hipfile::safetensors::SliceGeometry geometry;  // the rows of the file that hold the bytes
};

struct Loaded {
  std::vector<Placed> tensors;
  std::uint64_t bytes = 0;        // in memory
  std::size_t allocations = 0;
  hipfile::safetensors::LoadStats stats;
};

/// The tensors of a load() as rows (whole tensors).
Loaded describe(const hipfile::safetensors::Checkpoint& checkpoint,
                const hipfile::safetensors::LoadedCheckpoint& loaded);

/// "DIM:START:STOP", as --slice takes it.
std::string slice_text(const hipfile::safetensors::Slice& s);

}  // namespace hipfile::tools::load
