// SPDX-License-Identifier: MIT
/**
 * @file select.hpp
 * @brief Internal: the tensors a load or stream takes, by name and filter. Not part of the API.
 */
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <hipfile-safetensors/checkpoint.hpp>

namespace hipfile::safetensors::detail {

/// Checkpoint indices, in checkpoint (file) order, of the tensors @p names lists (all when it
/// is empty; a name not in the checkpoint is no_such_tensor) that @p filter, when set, accepts.
Result<std::vector<std::size_t>> select_tensors(const Checkpoint& c, const std::vector<std::string>& names,
                                                const std::function<bool(const TensorInfo&)>& filter);

/// The file errors about the whole checkpoint name: its index, or its first shard.
std::string checkpoint_name(const Checkpoint& c);

}  // namespace hipfile::safetensors::detail
