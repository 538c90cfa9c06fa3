// SPDX-License-Identifier: MIT
#include "parallel.hpp"

#include "errors.hpp"

#include <hip/hip_runtime_api.h>

#include <barrier>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace hipfile::tools::io {

PassTiming run_parallel(const std::vector<Worker>& workers, std::size_t slots,
                        const std::function<void(std::size_t)>& body) {
  using clock = std::chrono::steady_clock;
  // The clock starts in the barrier's completion step, which runs before any thread is released:
  // read after the release, a preempted main thread would start it late and inflate the rate.
  clock::time_point t0;
  auto started = [&t0]() noexcept { t0 = clock::now(); };
  std::barrier start(static_cast<std::ptrdiff_t>(workers.size() + 1), started);
  std::vector<clock::time_point> done(workers.size());
  std::mutex mutex;
  std::optional<Failure> failure;
  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (std::size_t w = 0; w < workers.size(); ++w)
    threads.emplace_back([&, w] {
      // hipSetDevice is per thread; set it before the start so it is not timed.
      (void)hipSetDevice(workers[w].device);
      start.arrive_and_wait();
      try {
        body(w);
      } catch (const Failure& f) {
        std::lock_guard lock(mutex);
        if (!failure) failure = f;
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        if (!failure) failure = Failure{e.what()};
      }
      done[w] = clock::now();
    });
  start.arrive_and_wait();
  for (auto& t : threads) t.join();
  if (failure) throw *failure;

  PassTiming timing;
  timing.slot_seconds.assign(slots, 0.0);
  for (std::size_t w = 0; w < workers.size(); ++w) {
    double s = std::chrono::duration<double>(done[w] - t0).count();
    timing.seconds = std::max(timing.seconds, s);
    timing.slot_seconds[workers[w].slot] = std::max(timing.slot_seconds[workers[w].slot], s);
  }
  return timing;
}

}  // namespace hipfile::tools::io
