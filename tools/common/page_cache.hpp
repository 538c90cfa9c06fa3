// SPDX-License-Identifier: MIT
// Putting a file range into a known page-cache state before a measured pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::tools {

/// Cold: writes back dirty pages (fdatasync) and drops the file's cached pages
/// (posix_fadvise DONTNEED), so the next read comes from the disk. Throws Failure.
void drop_from_cache(int fd, const std::string& path);
struct ByteRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

/// Hot: reads [0, length) with `threads` buffered readers so it sits in the page cache.
void load_into_cache(const std::string& path, std::uint64_t length, unsigned threads);
/// Reads every range with `threads` buffered readers so they sit in the page cache, and with
/// readahead off, so that nothing else of the file comes in with them.
void load_ranges_into_cache(const std::string& path, const std::vector<ByteRange>& ranges, unsigned threads);
/// Fraction of [0, length) resident in the page cache (mincore of a mapping); -1 if unknown.
double resident_fraction(int fd, std::uint64_t length);

}  // namespace hipfile::tools
