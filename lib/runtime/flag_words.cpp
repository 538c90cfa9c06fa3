// SPDX-License-Identifier: MIT
#include "runtime/flag_words.hpp"

#include <atomic>
#include <climits>

#include "gpu/hip.hpp"

namespace hipfile::engine {

hipError_t FlagWords::take(std::size_t n, std::uint32_t uses, std::vector<Word>& out) {
  std::vector<Word> got;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      while (got.size() < n && !free_.empty()) {
        const std::uint32_t i = free_.back();
        free_.pop_back();
        Entry& e = words_[i];
        if (UINT32_MAX - e.value < uses) continue;  // retired: a target would wrap
        got.push_back(Word{e.host, e.device, e.value, i});
        e.value += uses;  // what the word reaches once every use is over
      }
      if (got.size() == n) break;
    }
    if (hipError_t e = grow(); e != hipSuccess) {
      give_back(got);
      return e;
    }
  }
  out.insert(out.end(), got.begin(), got.end());
  return hipSuccess;
}

void FlagWords::give_back(std::vector<Word>& words) noexcept {
  std::lock_guard lock(mu_);
  for (const Word& w : words) free_.push_back(w.index);  // room reserved by grow()
  words.clear();
}

void FlagWords::raise(const Word& w, std::uint32_t use) noexcept {
  std::atomic_ref<std::uint32_t>(*w.host).store(w.base + use, std::memory_order_release);
}

// A block is made without the lock: pinning may wait for the runtime while a free in another
// thread drains the device, and give_back runs in host functions on streams it waits for.
hipError_t FlagWords::grow() {
  void* host = nullptr;
  void* device = nullptr;
  if (hipError_t e = gpu::alloc_host_mapped(kBlockWords * sizeof(std::uint32_t), host, device); e != hipSuccess)
    return e;
  auto* h = static_cast<std::uint32_t*>(host);
  auto* d = static_cast<std::byte*>(device);
  std::lock_guard lock(mu_);
  words_.reserve(words_.size() + kBlockWords);
  free_.reserve(words_.size() + kBlockWords);
  for (std::size_t k = 0; k < kBlockWords; ++k) {
    std::atomic_ref<std::uint32_t>(h[k]).store(0, std::memory_order_relaxed);
    free_.push_back(static_cast<std::uint32_t>(words_.size()));
    words_.push_back(Entry{h + k, d + k * sizeof(std::uint32_t), 0});
  }
  return hipSuccess;
}

FlagWords& flag_words() {
  static auto* words = new FlagWords;  // never destroyed: see the header
  return *words;
}

}  // namespace hipfile::engine
