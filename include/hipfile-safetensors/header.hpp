// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/header.hpp
 * @brief One safetensors file's header: read, parsed and validated into TensorInfo rows.
 *
 * The format: an 8-byte little-endian length N, N bytes of UTF-8 JSON (an object whose keys
 * are tensor names, each {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]},
 * plus an optional "__metadata__" object of strings), then the data section, in which every
 * tensor's bytes are [BEGIN, END). The rules checked here are the Python/Rust safetensors
 * package's own: the header starts with '{' and only whitespace pads it (no BOM, no NUL);
 * the tensors, sorted by offset, cover the data section exactly, without gaps or overlaps,
 * and each range holds shape × dtype size bytes.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dtype.hpp"
#include "error.hpp"
#include "export.hpp"

namespace hipfile::safetensors {

/// The format's limit on the header length (the Rust reader's N_LEN_LIMIT).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/// One tensor of a checkpoint, as its header describes it.
struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::size_t shard = 0;         ///< index into Checkpoint::shards()
  std::uint64_t begin = 0;       ///< data_offsets[0]: from the start of the shard's data section
  std::uint64_t end = 0;         ///< data_offsets[1]
  std::uint64_t file_offset = 0; ///< where the bytes start in the shard file (8 + N + begin)

  [[nodiscard]] std::uint64_t bytes() const noexcept { return end - begin; }
  [[nodiscard]] std::uint64_t elements() const noexcept {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

/// "[2, 3]" (and "[]" for a scalar), as messages and tools print shapes.
[[nodiscard]] HIPFILE_ST_API std::string shape_text(const std::vector<std::uint64_t>& shape);

/// A parsed header: its tensors (sorted by begin) and __metadata__.
struct Header {
  std::uint64_t data_start = 0;  ///< 8 + N
  std::vector<TensorInfo> tensors;
  std::map<std::string, std::string> metadata;
};

/**
 * @brief Parses and validates the JSON header @p text of @p file, whose data section is
 *        @p data_size bytes long. Tensor rows get begin/end; file_offset and shard are the
 *        caller's (read_header sets file_offset). Time and memory are linear in the header,
 *        whatever it holds.
 */
[[nodiscard]] HIPFILE_ST_API Result<Header> parse_header(const std::string& file, std::string_view text,
                                                        std::uint64_t data_size);

/**
 * @brief Reads the header of the open safetensors file @p fd (@p file names it in errors;
 *        @p file_size is its size now) with plain pread: the 8-byte length, its limits, then the
 *        JSON. Every TensorInfo gets its file_offset.
 */
[[nodiscard]] HIPFILE_ST_API Result<Header> read_header(const std::string& file, int fd, std::uint64_t file_size);

}  // namespace hipfile::safetensors
