// SPDX-License-Identifier: MIT
// Whether a file range is in the page cache, asked without side effects: the engine serves such
// ranges from the cache even through an O_DIRECT descriptor (doc/engine.md), since an
// O_DIRECT read of cached data runs at the disk's rate (bench/RESULTS.md).
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace hipfile::sys {

/// True when every page of [offset, offset + length) of `fd` is in the page cache (dirty pages
/// included). Asked with cachestat(2) (Linux 6.5) or, where the kernel lacks it, mincore(2) over
/// a mapping that is never touched; neither reads the file or starts readahead. False when
/// unknown (both refused, a descriptor that cannot be mapped) or for an empty range.
bool range_cached(int fd, off_t offset, std::size_t length) noexcept;

/// True when every page of the mapping [p, p + length) is resident (mincore(2), which touches
/// nothing); false when unknown. `p` is page-aligned, as mmap(2) returns it.
bool mapping_resident(const void* p, std::size_t length) noexcept;

/// Whether the byte at `offset` is in the page cache: a 1-byte preadv2(RWF_NOWAIT), which does
/// not wait for the disk. Unknown (old kernels, special files) counts as cached.
bool byte_cached(int fd, off_t offset) noexcept;

/// Whether a read of [offset, end) will find the disk rather than the cache: the byte at its
/// start, `window` bytes in, or at its end is not cached. The start alone is not enough: a small
/// read of a cold file (a checkpoint's header) leaves its first pages cached, readahead and all.
bool read_looks_cold(int fd, off_t offset, off_t end, off_t window) noexcept;

/// Tests: ask mincore(2) only, as on kernels before 6.5 (false: cachestat again where it works).
void ask_mincore_only(bool on) noexcept;

}  // namespace hipfile::sys
