// SPDX-License-Identifier: MIT
#include "runtime/executor.hpp"

#include <stdexcept>

namespace hipfile::engine {

Executor::Executor(unsigned threads) {
  threads_.reserve(threads);
  // A thread that cannot be created leaves a smaller pool; none at all is an error for the caller.
  for (unsigned i = 0; i < threads; ++i) {
    try {
      threads_.emplace_back([this] { main(); });
    } catch (...) {
      break;
    }
  }
  if (threads_.empty()) throw std::runtime_error("no executor thread could be started");
}

Executor::~Executor() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Executor::post(std::function<void()> task) {
  Tasks one;
  one.push_back(std::move(task));  // may throw: nothing is queued then
  post(one);
}

void Executor::post(Tasks& prepared) noexcept {
  {
    std::lock_guard lock(mu_);
    queue_.splice(queue_.end(), prepared);  // allocates nothing, cannot throw
  }
  wake_.notify_all();
}

void Executor::main() {
  for (;;) {
    Tasks one;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing is left to run
      one.splice(one.end(), queue_, queue_.begin());
    }
    try {
      one.front()();
    } catch (...) {
      // A task reports its own failure; nothing may take the thread down.
    }
  }
}

}  // namespace hipfile::engine
