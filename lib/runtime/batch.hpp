// SPDX-License-Identifier: MIT
// Batch I/O that executes: each submitted operation runs on the instance's executor through do_io,
// several at once. An operation is Waiting while queued, Pending while it runs, and ends
// Complete, Failed (with its result's status) or Canceled. Each finished operation is reported
// exactly once by get_status, in completion order, and then frees its place. lib/api/batch.cpp
// converts the C API's parameters and events; handles are batch_table.hpp's.
#pragma once

#include <time.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "io/request.hpp"
#include "io/status.hpp"
#include "runtime/file_table.hpp"

namespace hipfile::engine {

/// One operation as submitted. `known_op`: the C mode and opcode named a batch read or write
/// (an unknown one is refused where upstream refuses it, after the driver check).
struct BatchIo {
  bool known_op = false;
  Direction dir = Direction::Read;
  FileId file = 0;
  void* base = nullptr;
  std::size_t size = 0;
  off_t file_offset = 0;
  off_t buffer_offset = 0;
  void* cookie = nullptr;
};

enum class BatchState { Waiting, Pending, Complete, Failed, Canceled };

/// One finished operation as get_status reports it.
struct BatchEvent {
  void* cookie = nullptr;
  BatchState state = BatchState::Waiting;
  IoResult result;  // zero bytes for a canceled operation
};

class Batch : public std::enable_shared_from_this<Batch> {
 public:
  static constexpr unsigned kMaxEntries = 128;

  explicit Batch(unsigned capacity);
  /// All-or-nothing: every operation is checked before any is queued. `nr` > 0 and `ios` set
  /// (lib/api/batch.cpp checks them).
  Status submit(unsigned nr, const BatchIo* ios);
  /// Waits for `min_nr` finished operations (or the timeout; null: none) and reports up to
  /// `nr` of them in `events`; `nr` becomes how many.
  Status get_status(unsigned min_nr, unsigned& nr, BatchEvent* events, const timespec* timeout);
  /// Cancels every operation not yet started and waits for the running ones.
  void cancel();

 private:
  struct Entry {
    BatchIo io;
    BatchState state = BatchState::Waiting;
    IoResult result;
    std::uint64_t generation = 0;
    bool in_use = false;
  };
  /// Takes `nr` free entries for `ios` and says which in `slots` (index, generation); false,
  /// taking none, when fewer are free.
  bool commit(unsigned nr, const BatchIo* ios, std::vector<std::pair<unsigned, std::uint64_t>>& slots);
  void run(unsigned index, std::uint64_t generation);

  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<Entry> entries_;
  std::deque<unsigned> finished_;  // finished, not yet reported, in completion order
  unsigned outstanding_ = 0;       // in use: queued, running, or finished but not reported
  unsigned running_ = 0;
};

}  // namespace hipfile::engine
