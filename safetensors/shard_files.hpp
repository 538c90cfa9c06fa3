// SPDX-License-Identifier: MIT
/**
 * @file shard_files.hpp
 * @brief Internal: the shard files a load reads, checked and registered with the library.
 *        Not part of the API.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <hipfile++/file.hpp>
#include <hipfile-safetensors/checkpoint.hpp>

namespace hipfile::safetensors::detail {

/// Every shard @p used marks still has the size it had when the checkpoint was opened
/// (shard_changed otherwise, naming @p tensor_of[shard] when given).
Result<void> check_shard_sizes(const Checkpoint& c, const std::vector<char>& used);

/// A registered File of each shard @p used marks (a descriptor of its own, O_DIRECT with
/// @p direct where the file system allows); the others stay empty.
Result<std::vector<File>> register_shards(const Checkpoint& c, const std::vector<char>& used, bool direct);

}  // namespace hipfile::safetensors::detail

namespace hipfile::safetensors::detail {

/// The error of a failed read of @p bytes at @p offset of @p file for @p tensor: shard_changed
/// when the file ended first (ENODATA), io_error with the cause otherwise (@p into, e.g. " into
/// device 0", follows the offset).
Error read_failure(const std::string& file, const std::string& tensor, std::uint64_t bytes, std::uint64_t offset,
                   const hipfile::Error& cause, const std::string& into = "");

}  // namespace hipfile::safetensors::detail
