// SPDX-License-Identifier: MIT
// One pass of --slice / --rank: one device buffer for every part, filled by fill().
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include <cstdint>
#include <vector>

#include "placed.hpp"
#include "slices.hpp"

namespace hipfile::tools::load {

/// One hipMalloc on one GPU, freed with the object.
class Arena {
 public:
  Arena() = default;
  Arena(int device, std::uint64_t bytes);  // throws Failure when the allocation fails
  Arena(Arena&& o) noexcept : data_(o.data_), device_(o.device_) { o.data_ = nullptr; }
  Arena& operator=(Arena&& o) noexcept;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();
  [[nodiscard]] char* data() const noexcept { return static_cast<char*>(data_); }

 private:
  void* data_ = nullptr;
  int device_ = 0;
};

struct FilledPass {
  Arena arena;
  Loaded loaded;  // stats: fill()'s, with the arena's hipMalloc as allocate_seconds
};

/// Allocates the parts' memory on @p device and fills it. Throws Failure on a HIP error;
/// fill()'s own errors are returned.
hipfile::safetensors::Result<FilledPass> fill_pass(const hipfile::safetensors::Checkpoint& checkpoint,
                                                  const std::vector<Part>& parts, int device,
                                                  const hipfile::safetensors::FillOptions& options);

}  // namespace hipfile::tools::load
