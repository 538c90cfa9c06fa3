// SPDX-License-Identifier: MIT
// Batch I/O that executes: each submitted operation runs on the instance's executor through do_io,
// several at once. An operation is Waiting while queued, Pending while it runs, and ends
// Complete, Failed (ret = the negated error, see io.hpp) or Canceled. Each finished operation
// is reported exactly once by GetStatus, in completion order, and then frees its place.
#pragma once

#include <hipfile/hipfile.h>

#include <time.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "io/status.hpp"

namespace hipfile::engine {

class Batch : public std::enable_shared_from_this<Batch> {
 public:
  static constexpr unsigned kMaxEntries = 128;

  explicit Batch(unsigned capacity);
  /// All-or-nothing: every operation is checked before any is queued. `nr` > 0 and `ios` set
  /// (lib/api/batch.cpp checks them).
  Status submit(unsigned nr, const hipFileIOParams_t* ios);
  Status get_status(unsigned min_nr, unsigned* nr, hipFileIOEvents_t* events, const timespec* timeout);
  /// Cancels every operation not yet started and waits for the running ones.
  void cancel();

 private:
  struct Entry {
    hipFileIOParams_t params{};
    hipFileStatus_t status = hipFileWaiting;
    std::size_t ret = 0;
    std::uint64_t generation = 0;
    bool in_use = false;
  };
  /// Takes `nr` free entries for `ios` and says which in `slots` (index, generation); false,
  /// taking none, when fewer are free.
  bool commit(unsigned nr, const hipFileIOParams_t* ios, std::vector<std::pair<unsigned, std::uint64_t>>& slots);
  void run(unsigned index, std::uint64_t generation);

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Entry> entries_;
  std::deque<unsigned> finished_;  // finished, not yet reported, in completion order
  unsigned outstanding_ = 0;       // in use: queued, running, or finished but not reported
  unsigned running_ = 0;
};

Status batch_setup(hipFileBatchHandle_t* out, unsigned max_nr);
/// The batch behind a handle, or null for one that is unknown or destroyed.
std::shared_ptr<Batch> batch_find(hipFileBatchHandle_t handle);
/// Forgets the handle, cancels what has not started and waits for what runs.
void batch_destroy(hipFileBatchHandle_t handle);
/// At the last driver close: every batch handle is destroyed, so later calls with it are
/// refused (hipFileInvalidValue), as hipFile 0.5 refuses them.
void batch_destroy_all();

}  // namespace hipfile::engine
