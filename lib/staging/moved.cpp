// SPDX-License-Identifier: MIT
#include "staging/moved.hpp"

#include <atomic>

namespace hipfile::engine {

namespace {
std::atomic<MovedHook> g_hook{nullptr};
}  // namespace

void set_moved_hook(MovedHook hook) noexcept { g_hook.store(hook, std::memory_order_release); }

void count_moved(MovedSlot slot, Direction dir, bool direct, std::size_t bytes) noexcept {
  if (bytes == 0) return;
  if (MovedHook hook = g_hook.load(std::memory_order_acquire)) hook(slot, dir, direct, bytes);
}

}  // namespace hipfile::engine
