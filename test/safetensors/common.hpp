// SPDX-License-Identifier: MIT
// Checkpoints the safetensors tests make themselves: raw files from header text (for the
// malformed cases), valid files from a tensor list with pattern data, and a scratch folder.
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include "test_support.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hipfile::test::st {

namespace sts = hipfile::safetensors;

/// A folder under test_dir(), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const noexcept { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Writes the length N (or @p length), N bytes of @p header, then @p data.
void write_raw(const std::string& path, const std::string& header, const std::vector<std::byte>& data,
               std::optional<std::uint64_t> length = std::nullopt);

/// A tensor of a generated checkpoint.
struct Spec {
  std::string name;
  sts::Dtype dtype;
  std::vector<std::uint64_t> shape;
};

/// The bytes of a spec's data (shape × dtype size).
std::uint64_t spec_bytes(const Spec& s);

/// What a generated file holds: each tensor's bytes, by name.
struct Made {
  std::vector<std::pair<std::string, std::vector<std::byte>>> tensors;
  const std::vector<std::byte>& at(const std::string& name) const;
};

/// Writes a valid safetensors file, tensors in the given order, each one's data the test
/// pattern of its position in the file (seed @p seed), @p metadata as the header's
/// __metadata__ JSON object text ("" for none). Offsets are packed (no alignment), so odd
/// sizes leave later tensors at odd offsets.
Made make_checkpoint(const std::string& path, const std::vector<Spec>& specs, std::uint64_t seed = 1,
                     const std::string& metadata = "");

/// The header text of one tensor entry.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape, std::uint64_t begin,
                  std::uint64_t end);

/// Copies a loaded tensor's device bytes to the host.
std::vector<std::byte> host_bytes(const sts::LoadedTensor& t);

/// Device allocations live on hip-cpu devices 0 and 1 (for leak checks; 0 elsewhere).
int live_device_allocations();

}  // namespace hipfile::test::st
