// SPDX-License-Identifier: MIT
#include "runtime/async_state.hpp"

namespace hipfile::engine {

StreamTable& streams() {
  static auto* table = new StreamTable;  // never destroyed: see the header
  return *table;
}

void async_prepare_fork() noexcept { streams().mu.lock(); }

void async_after_fork(bool /*in_child*/) noexcept { streams().mu.unlock(); }

}  // namespace hipfile::engine
