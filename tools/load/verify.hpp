// SPDX-License-Identifier: MIT
// --verify: every loaded tensor against a plain pread of its file, byte for byte.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace hipfile::tools::load {

/// Compares every tensor of @p loaded with the checkpoint's files; returns an empty string
/// when all match, else the first difference ("tensor 'x' differs at byte 5 (file offset
/// 1029 of PATH): GPU has 0x12, the file 0x34"). Throws Failure on a HIP or read error.
std::string verify(const hipfile::safetensors::Checkpoint& checkpoint,
                   const hipfile::safetensors::LoadedCheckpoint& loaded);

/// HIPFILE_LOAD_CORRUPT=NAME:BYTE (tests): adds 1 to that byte in GPU memory. Throws Failure
/// on a malformed value or a missing tensor.
void corrupt_for_tests(const hipfile::safetensors::LoadedCheckpoint& loaded, const char* spec);

}  // namespace hipfile::tools::load
