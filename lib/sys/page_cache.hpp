// SPDX-License-Identifier: MIT
// Whether a file range is in the page cache, asked without side effects: the engine serves such
// ranges from the cache even through an O_DIRECT descriptor (DESIGN.md, the engine), since an
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

/// Tests: ask mincore(2) only, as on kernels before 6.5 (false: cachestat again where it works).
void ask_mincore_only(bool on) noexcept;

}  // namespace hipfile::sys
