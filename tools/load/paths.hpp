// SPDX-License-Identifier: MIT
// The checkpoint's files, checked before the loader opens them: the loader's plain open() of a
// FIFO waits for a writer forever, so a FIFO (or a device, a directory) is refused here first.
#pragma once

#include <string>
#include <vector>

namespace hipfile::tools::load {

/// Throws Failure ("PATH is a FIFO, not a regular file") for a PATH that exists and is not a
/// regular file, or, for an index, a shard its weight_map names that is not. Missing files and
/// malformed indexes are left to the loader, which names them in its own words.
void check_checkpoint_files(const std::vector<std::string>& paths);

}  // namespace hipfile::tools::load
