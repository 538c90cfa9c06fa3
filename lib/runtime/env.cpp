// SPDX-License-Identifier: MIT
#include "runtime/env.hpp"

#include <sys/auxv.h>

#include <atomic>
#include <cstdlib>

namespace hipfile::engine::env {

namespace {
std::atomic<bool> g_test_privileged{false};
}

bool privileged() noexcept {
  return g_test_privileged.load(std::memory_order_relaxed) || ::getauxval(AT_SECURE) != 0;
}

const char* get(const char* name) noexcept {
  // secure_getenv already answers null under AT_SECURE; the seam makes tests see the same.
  if (g_test_privileged.load(std::memory_order_relaxed)) return nullptr;
  return ::secure_getenv(name);
}

bool path_ignored(const char* name) noexcept {
  return privileged() && std::getenv(name) != nullptr;
}

void set_privileged_for_test(bool value) noexcept { g_test_privileged.store(value, std::memory_order_relaxed); }

}  // namespace hipfile::engine::env
