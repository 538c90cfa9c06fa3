// SPDX-License-Identifier: MIT
// --verify: every loaded tensor (or slice) against a plain pread of its file, byte for byte.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <string>

#include "placed.hpp"

namespace hipfile::tools::load {

/// Compares every row of @p loaded with the checkpoint's files (a slice's bytes read row by
/// row from where the file holds them); returns an empty string when all match, else the
/// first difference ("tensor 'x' differs at byte 5 (file offset 1029 of PATH): GPU has 0x12,
/// the file 0x34"). Throws Failure on a HIP or read error.
std::string verify(const hipfile::safetensors::Checkpoint& checkpoint, const Loaded& loaded);

/// HIPFILE_LOAD_CORRUPT=NAME:BYTE (tests): adds 1 to that byte in GPU memory. Throws Failure
/// on a malformed value or a missing tensor.
void corrupt_for_tests(const Loaded& loaded, const char* spec);

}  // namespace hipfile::tools::load
