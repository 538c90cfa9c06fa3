// SPDX-License-Identifier: MIT
// Bytes as the staging engine moves them to or from the file, told to whoever keeps the
// statistics (the runtime sets the hook at driver open). The engine names its own slots rather
// than the statistics' C enums, so it depends on nothing above it.
#pragma once

#include <cstddef>

#include "io/request.hpp"

namespace hipfile::engine {

/// Whose bytes they are: a request on host memory (served by plain POSIX I/O) or one the engine
/// stages for device memory.
enum class MovedSlot { Host, Engine };

/// `direct`: with O_DIRECT; otherwise through the page cache.
using MovedHook = void (*)(MovedSlot slot, Direction dir, bool direct, std::size_t bytes) noexcept;

/// Sets the hook; null stops the counting.
void set_moved_hook(MovedHook hook) noexcept;
/// Tells the hook of `bytes` moved; nothing for 0 bytes or without a hook.
void count_moved(MovedSlot slot, Direction dir, bool direct, std::size_t bytes) noexcept;

}  // namespace hipfile::engine
