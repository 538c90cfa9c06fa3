// SPDX-License-Identifier: MIT
// The verifiable file pattern: every 8-byte word is a hash of its own file offset, so any byte
// read from any offset can be checked without keeping a copy, and data landing at the wrong
// offset (or a stale buffer) is caught, not only corrupted bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace hipfile::tools {

/// Writes the pattern bytes of file range [file_offset, file_offset + length) into dst.
void fill_pattern(void* dst, std::uint64_t file_offset, std::size_t length);
/// The file offset of the first byte in src that differs from the pattern, if any.
std::optional<std::uint64_t> check_pattern(const void* src, std::uint64_t file_offset, std::size_t length);

}  // namespace hipfile::tools
