// SPDX-License-Identifier: MIT
#include "runtime/async_state.hpp"

#include "runtime/flag_words.hpp"

namespace hipfile::engine {

StreamTable& streams() {
  static auto* table = new StreamTable;  // never destroyed: see the header
  return *table;
}

void async_prepare_fork() noexcept {
  streams().mu.lock();
  flag_words().lock_for_fork();
}

void async_after_fork(bool /*in_child*/) noexcept {
  flag_words().unlock_after_fork();
  streams().mu.unlock();
}

}  // namespace hipfile::engine
