// SPDX-License-Identifier: MIT
// LoadedCheckpoint: the device allocations load() made and the views of its tensors.
#include <hipfile-safetensors/loaded.hpp>

#include <cstdint>

#include "fail.hpp"

namespace hipfile::safetensors {

const LoadedTensor* LoadedCheckpoint::find(std::string_view name) const noexcept {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

std::uint64_t LoadedCheckpoint::bytes() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : tensors_) n += t.bytes;
  return n;
}

Result<const LoadedTensor*> LoadedCheckpoint::typed(std::string_view name, Dtype want, std::size_t alignment) const {
  const LoadedTensor* t = find(name);
  if (t == nullptr) return detail::fail(Errc::no_such_tensor, "", std::string(name), "is not loaded");
  if (t->dtype != want)
    return detail::fail(Errc::dtype_mismatch, "", t->name,
                        "is " + std::string(t->dtype_name()) + ", not " + std::string(dtype_name(want)));
  if (reinterpret_cast<std::uintptr_t>(t->data) % alignment != 0)
    return detail::fail(Errc::invalid_argument, "", t->name,
                        "is not aligned to " + std::to_string(alignment) + " bytes in device memory");
  return t;
}

Result<std::span<std::byte>> LoadedCheckpoint::bytes(std::string_view name) const {
  const LoadedTensor* t = find(name);
  if (t == nullptr) return detail::fail(Errc::no_such_tensor, "", std::string(name), "is not loaded");
  return std::span<std::byte>(static_cast<std::byte*>(t->data), t->bytes);
}

std::vector<Allocation> LoadedCheckpoint::release() noexcept {
  for (auto& b : owned_) (void)b.release();
  owned_.clear();
  return std::exchange(allocations_, {});
}

void LoadedCheckpoint::reset() noexcept {
  owned_.clear();
  allocations_.clear();
  tensors_.clear();
  by_name_.clear();
}

void LoadedCheckpoint::add_allocation(DeviceBuffer buffer, std::size_t shard) {
  allocations_.push_back(Allocation{buffer.data(), buffer.size(), buffer.device(), shard});
  owned_.push_back(std::move(buffer));
}

void LoadedCheckpoint::add_tensor(LoadedTensor t) {
  by_name_.emplace(t.name, tensors_.size());
  tensors_.push_back(std::move(t));
}

}  // namespace hipfile::safetensors
