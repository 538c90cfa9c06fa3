// SPDX-License-Identifier: MIT
// The executor: a small pool of threads that run whole operations (async and batch I/O),
// several at once. It belongs to the driver instance (lib/runtime/instance.hpp): started at the
// first async or batch submission of an open, and stopped and joined when the instance is torn
// down at the last close, so no library thread outlives the driver (a child forked after the
// close starts its own at its first open).
#pragma once

#include <condition_variable>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfile::engine {

class Executor {
 public:
  using Tasks = std::list<std::function<void()>>;

  /// Starts up to `threads` threads (at least one); throws when none can be started.
  explicit Executor(unsigned threads);
  /// Runs what is still queued, then stops and joins the threads. The owner makes sure no one
  /// posts any more.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// Queues `task`; never blocks on I/O (only on the queue's mutex). May throw (allocation);
  /// nothing is queued then.
  void post(std::function<void()> task);
  /// Queues every task of `prepared` (moved out), allocating nothing: for host callbacks and for
  /// all-or-nothing submissions, whose nodes are made before anything is committed.
  void post(Tasks& prepared) noexcept;
  std::size_t threads() const noexcept { return threads_.size(); }

 private:
  void main();
  std::mutex mu_;
  std::condition_variable wake_;
  Tasks queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hipfile::engine
