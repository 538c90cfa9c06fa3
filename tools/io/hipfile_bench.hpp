// SPDX-License-Identifier: MIT
// The measured subject: the plan's requests through the hipFile C API, with sync, async
// (hipFileReadAsync/WriteAsync on N streams) or batch (hipFileBatchIO*) calls.
#pragma once

#include "data_file.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "parallel.hpp"
#include "progress.hpp"

#include <hipfile/hipfile.h>

#include <string>
#include <vector>

namespace hipfile::tools::io {

class HipfileBench {
 public:
  /// Allocates (and with --register registers) each worker's buffers and registers every file
  /// of `files` (one, or one per GPU), which the caller keeps open until this object is gone.
  /// Throws Failure.
  HipfileBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots,
               const std::vector<DataFile>& files, Progress& progress);
  ~HipfileBench();
  HipfileBench(const HipfileBench&) = delete;
  HipfileBench& operator=(const HipfileBench&) = delete;

  /// One pass with the configured API. verify: reads check every request's bytes against the
  /// pattern; writes write the pattern (checked afterwards by check_written()).
  PassTiming run(bool verify);
  /// The same requests as sync calls, one after another on one thread: what async and batch
  /// are compared with.
  double run_serial();
  /// After a verify write pass: reads the written ranges back with pread and checks them.
  void check_written() const;

 private:
  struct WorkerState {
    Memory buffer;
    bool registered = false;
    std::vector<hipStream_t> streams;
    hipFileBatchHandle_t batch = nullptr;
  };

  void sync_request(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify);
  void sync_worker(std::size_t w, bool verify);
  void async_worker(std::size_t w, bool verify);
  void batch_worker(std::size_t w, bool verify);
  void before_write(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify) const;
  void after_read(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify) const;
  /// A request named for messages: its bytes, offset and file.
  std::string where(std::size_t w, const Request& r) const;
  hipFileHandle_t handle(std::size_t w) const { return handles_[workers_[w].file]; }

  const Options& options_;
  const std::vector<Worker>& workers_;
  std::size_t slots_;
  Progress& progress_;
  const std::vector<DataFile>& files_;
  std::vector<hipFileHandle_t> handles_;  // one per data file
  std::vector<WorkerState> state_;
};

}  // namespace hipfile::tools::io
