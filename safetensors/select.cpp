// SPDX-License-Identifier: MIT
// The selection of a load or stream: names asked for, then the filter.
#include "select.hpp"

#include "fail.hpp"

namespace hipfile::safetensors::detail {

std::string checkpoint_name(const Checkpoint& c) {
  return !c.index_path().empty() ? c.index_path() : c.shards().empty() ? "" : c.shards().front().path;
}

Result<std::vector<std::size_t>> select_tensors(const Checkpoint& c, const std::vector<std::string>& names,
                                                const std::function<bool(const TensorInfo&)>& filter) {
  std::vector<char> wanted(c.tensors().size(), names.empty() ? 1 : 0);
  for (const auto& name : names) {
    const TensorInfo* t = c.find(name);
    if (t == nullptr) return fail(Errc::no_such_tensor, checkpoint_name(c), name, "is not in the checkpoint");
    wanted[static_cast<std::size_t>(t - c.tensors().data())] = 1;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < wanted.size(); ++i)
    if (wanted[i] && (!filter || filter(c.tensors()[i]))) out.push_back(i);
  return out;
}

}  // namespace hipfile::safetensors::detail
