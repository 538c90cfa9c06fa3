// SPDX-License-Identifier: MIT
// --slice and --rank: which part of each selected tensor is read.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <optional>
#include <vector>

#include "options.hpp"

namespace hipfile::tools::load {

/// One tensor to read: a slice of it, or (no slice) the whole of it.
struct Part {
  const hipfile::safetensors::TensorInfo* tensor = nullptr;
  std::optional<hipfile::safetensors::Slice> slice;
  hipfile::safetensors::SliceGeometry geometry;
};

/// The part of every chosen tensor (checkpoint order) that --slice or --rank asks for.
hipfile::safetensors::Result<std::vector<Part>> plan_parts(const hipfile::safetensors::Checkpoint& checkpoint,
                                                           const std::vector<char>& chosen, const Options& o);

}  // namespace hipfile::tools::load
