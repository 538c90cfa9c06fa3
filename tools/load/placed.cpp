// SPDX-License-Identifier: MIT
#include "placed.hpp"

#include <fmt/format.h>

namespace hipfile::tools::load {

namespace sts = hipfile::safetensors;

Loaded describe(const sts::Checkpoint& c, const sts::LoadedCheckpoint& l) {
  Loaded out;
  for (const auto& t : l.tensors()) {
    const sts::TensorInfo& info = *c.find(t.name);
    out.tensors.push_back(Placed{t.name, std::string(t.dtype_name()), t.shape, info.shape, std::nullopt, t.device,
                                 t.data, t.bytes, info.shard, sts::whole_geometry(info)});
  }
  out.bytes = l.bytes();
  out.allocations = l.allocations().size();
  out.stats = l.stats();
  return out;
}

std::string slice_text(const sts::Slice& s) { return fmt::format("{}:{}:{}", s.dim, s.start, s.stop); }

}  // namespace hipfile::tools::load
