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

/// Raw parallel pread/pwrite with the plan's threads and requests into pinned host memory.
class RawBench {
 public:
  RawBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress);
  PassTiming run(int fd);

 private:
  const Options& options_;
  const std::vector<Worker>& workers_;
  std::size_t slots_;
  Progress& progress_;
  std::vector<Memory> buffers_;
};

/// What a user writes by hand without hipFile: the plan's threads, each with its own pinned host
/// buffer, pread then hipMemcpy to the device (writes: hipMemcpy back, then pwrite). Small random
/// reads are compared with this (IOPS), since neither side can overlap much within a request.
class HandBench {
 public:
  HandBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress);
  PassTiming run(int fd);

 private:
  const Options& options_;
  const std::vector<Worker>& workers_;
  std::size_t slots_;
  Progress& progress_;
  std::vector<Memory> host_;    // per worker, pinned
  std::vector<Memory> device_;  // per worker
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

}  // namespace hipfile::tools::io
