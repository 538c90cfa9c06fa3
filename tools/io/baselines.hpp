// SPDX-License-Identifier: MIT
// What hipFile is compared with, measured in the same run: the pinned copy ceiling, raw
// parallel pread/pwrite into pinned host memory, and the naive path (upstream's fallback).
#pragma once

#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "progress.hpp"

#include <vector>

namespace hipfile::tools::io {

/// Seconds for hipMemcpy of `bytes` between pinned host memory and `device`, in `block`-sized
/// copies (host→device when to_device). The first copy is a warm-up and is not timed.
double time_pinned_copy(int device, bool to_device, std::uint64_t bytes, std::uint64_t block);

/// Raw parallel pread/pwrite with the plan's threads and requests into pinned host memory, one
/// buffer per thread. With `by_hand`, it is what a user writes without hipFile: each pread is
/// followed by a hipMemcpy to the thread's device buffer (writes: hipMemcpy back, then pwrite).
/// Small random reads are compared with that (IOPS): neither side overlaps within a request.
class RawBench {
 public:
  RawBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress,
           bool by_hand = false);
  PassTiming run(int fd);

 private:
  const Options& options_;
  const std::vector<Worker>& workers_;
  std::size_t slots_;
  Progress& progress_;
  std::vector<Memory> buffers_;  // per worker, pinned
  std::vector<Memory> device_;   // per worker, by_hand only
};

/// Upstream's fallback: for every request, one after another on one thread, pread into a
/// pageable buffer then hipMemcpy to the device (writes: hipMemcpy back, then pwrite).
class NaiveBench {
 public:
  NaiveBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress);
  double run(int fd);

 private:
  const Options& options_;
  const std::vector<Worker>& workers_;
  Progress& progress_;
  Memory host_;
  std::vector<Memory> device_;  // per slot
};

/// One sequential buffered reader, the way cat or dd reads: [0, total) in order on one thread,
/// through the page cache on a descriptor of its own (never O_DIRECT), in blocks of the run's
/// request size clamped to 1-16 MiB, into pinned host memory. A cold read by the library is
/// held against the better of this and raw parallel pread: whichever the disk serves faster.
class StreamBench {
 public:
  StreamBench(const Options& options, const std::vector<Worker>& workers, Progress& progress);
  ~StreamBench();
  StreamBench(const StreamBench&) = delete;
  StreamBench& operator=(const StreamBench&) = delete;
  PassTiming run();

 private:
  Progress& progress_;
  std::vector<Worker> reader_;  // one worker: the blocks in file order
  Memory buffer_;               // pinned, one block
  int fd_ = -1;                 // buffered
};

}  // namespace hipfile::tools::io
