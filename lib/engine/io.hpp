// SPDX-License-Identifier: MIT
// One synchronous read or write as the C API defines it: argument and bounds checks, buffer
// resolution (registered, unregistered device, host, managed), then the staging engine.
// Batch and async I/O come through here too, so every path applies the same rules.
#pragma once

#include <hipfile/hipfile.h>

#include "engine/engine.hpp"
#include "engine/status.hpp"

namespace hipfile::engine {

/// Never touches memory outside [buffer_base + buffer_offset, + size) or the file range.
IoResult do_io(Direction dir, hipFileHandle_t fh, const void* buffer_base, std::size_t size,
               hoff_t file_offset, hoff_t buffer_offset);

}  // namespace hipfile::engine
