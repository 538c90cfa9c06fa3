// SPDX-License-Identifier: MIT
/**
 * @file workers.hpp
 * @brief Internal: one job loop run on several threads, where a thread that cannot be started
 *        is not fatal. Not part of the API.
 *
 * Threads are started with pthread_create, whose failure is an error number in every build
 * (std::thread's is an exception, which a build with -fno-exceptions cannot catch and which
 * would unwind past threads still joinable: std::terminate either way).
 */
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cstddef>

namespace hipfile::safetensors::detail {

/// The most threads one load() or write() runs, the caller's included. Past the reads a disk
/// can keep queued, more threads only cost stacks; a process may also be allowed few threads.
inline constexpr std::size_t kMaxThreads = 64;

/// Starts a thread running body(arg): 0, or the error number (EAGAIN when the system refuses).
using ThreadStarter = int (*)(pthread_t* thread, void* (*body)(void*), void* arg);

inline int start_thread(pthread_t* thread, void* (*body)(void*), void* arg) {
  return ::pthread_create(thread, nullptr, body, arg);
}

/**
 * @brief Runs @p work on min(@p wanted, kMaxThreads) threads at once, the calling thread one
 *        of them, and returns when every one has returned.
 *
 * @p work must take jobs from a shared queue until it is empty, so that the threads that run
 * share every job whatever their number. A thread that @p start cannot start is done without:
 * the work runs on the ones started before it (at least the caller's).
 * @return the number of threads that ran @p work.
 */
template <class Work>
std::size_t run_on_threads(std::size_t wanted, Work& work, ThreadStarter start = start_thread) {
  // Joins on the way out, also when the caller's own share of the work throws (a progress
  // callback may): no thread outlives the work it refers to.
  struct Started {
    pthread_t threads[kMaxThreads];
    std::size_t count = 0;
    ~Started() {
      for (std::size_t k = 0; k < count; ++k) ::pthread_join(threads[k], nullptr);
    }
  } started;
  const std::size_t n = std::clamp<std::size_t>(wanted, 1, kMaxThreads);
  auto body = [](void* w) -> void* {
    (*static_cast<Work*>(w))();
    return nullptr;
  };
  while (started.count + 1 < n && start(&started.threads[started.count], body, &work) == 0) ++started.count;
  work();
  return started.count + 1;
}

}  // namespace hipfile::safetensors::detail
