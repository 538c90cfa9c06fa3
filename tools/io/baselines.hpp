// SPDX-License-Identifier: MIT
// What hipFile is compared with, measured in the same run: the pinned copy ceiling, raw
// parallel pread/pwrite into pinned host memory, and the naive path (upstream's fallback).
#pragma once

#include "data_file.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "progress.hpp"

#include <vector>

namespace hipfile::tools::io {

/// The pinned copy ceiling: hipMemcpy of `bytes` per GPU between pinned host memory and each of
/// `devices`, in `block`-sized copies, every GPU on its own thread and all of them at once, so
/// that with several GPUs the figure is what the host's memory and links carry together, not
/// a sum of GPUs measured alone. Each GPU's buffers are allocated and warmed up once, untimed.
class CopyBench {
 public:
  CopyBench(const std::vector<int>& devices, std::uint64_t bytes, std::uint64_t block);
  /// One pass in one direction (host to device when to_device): the time until the last GPU
  /// finished, and each GPU's own.
  PassTiming run(bool to_device);

 private:
  std::uint64_t bytes_, block_;
  std::vector<Worker> copiers_;  // one per GPU: only device and slot are used
  std::vector<Memory> host_, device_;
};

/// Raw parallel pread/pwrite with the plan's threads and requests into pinned host memory, one
/// buffer per thread. With `by_hand`, it is what a user writes without hipFile: each pread is
/// followed by a hipMemcpy to the thread's device buffer (writes: hipMemcpy back, then pwrite).
/// Small random reads are compared with that (IOPS): neither side overlaps within a request.
class RawBench {
 public:
  RawBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress,
           bool by_hand = false);
  PassTiming run(const std::vector<DataFile>& files);

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
  double run(const std::vector<DataFile>& files);

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
/// With a file per GPU it reads each file's share from its offset 0, one file after the other.
class StreamBench {
 public:
  StreamBench(const Options& options, const std::vector<Worker>& workers, const std::vector<DataFile>& files,
              Progress& progress);
  ~StreamBench();
  StreamBench(const StreamBench&) = delete;
  StreamBench& operator=(const StreamBench&) = delete;
  PassTiming run();

 private:
  struct Block {
    std::size_t file;
    Request request;
  };
  Progress& progress_;
  std::vector<Worker> reader_;  // one worker, the thread that reads
  std::vector<Block> blocks_;   // in the order read
  std::vector<std::string> paths_;
  Memory buffer_;               // pinned, one block
  std::vector<int> fds_;        // buffered, one per data file
};

}  // namespace hipfile::tools::io
