// SPDX-License-Identifier: MIT
#include "runtime/async_state.hpp"

namespace hipfile::engine {

FlagPool& flags() {
  static FlagPool* p = new FlagPool;
  return *p;
}

StreamTable& streams() {
  static StreamTable* t = new StreamTable;
  return *t;
}

void without_async_waits(const std::function<void()>& fn) { flags().quiesce(fn); }

// The order a submission takes them in: a stream's stripe, then the pool's lock.
void async_prepare_fork() noexcept {
  StreamTable& t = streams();
  for (std::mutex& m : t.stripes) m.lock();
  t.mu.lock();
  flags().lock_for_fork();
}

void async_after_fork(bool in_child) noexcept {
  StreamTable& t = streams();
  flags().unlock_after_fork(in_child);
  t.mu.unlock();
  for (std::mutex& m : t.stripes) m.unlock();
}

void advance_flag_words_for_test(std::uint32_t value) { flags().advance_free_words(value); }

}  // namespace hipfile::engine
