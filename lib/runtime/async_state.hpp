// SPDX-License-Identifier: MIT
// What async I/O keeps across its operations: the pool of flag words the streams wait on and
// the registered streams' fixed parameters; with the hooks the driver and instances need (fork,
// freeing staging memory while no stream waits). Apart from async.cpp so that the driver, which
// async operations include, does not include them back.
#pragma once

#include <hip/hip_runtime_api.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace hipfile::engine {

/// Which of an async operation's parameters a registered stream fixes at submission (the value
/// then stands); the others are read again when the stream reaches the operation.
struct StreamFixed {
  bool size = false;
  bool file_offset = false;
  bool buffer_offset = false;
};

// ---- Flag words -----------------------------------------------------------------------------------
// Pinned, device-mapped 32-bit words (hipStreamWaitValue64 is not in every runtime the library
// runs on). A word only ever grows: each use waits for "word >= target" with target = previous
// value + 1, so a slot is reusable as soon as its operation completes (a stream still waiting on
// the old target is satisfied by any later value too). A word is retired before its value could
// wrap: after 2^32 - 1 uses it is never handed out again, so "word >= target" can never be
// satisfied early by a wrapped target.

struct FlagSlot {
  std::uint32_t* host = nullptr;
  void* device = nullptr;
  std::uint32_t target = 0;
  std::uint32_t index = 0;
};

class FlagPool {
 public:
  static constexpr std::size_t kBlockWords = 1024;

  /// A word and its next target. A failed allocation is that call's error only: the next call
  /// tries again.
  hipError_t acquire(FlagSlot& out);
  /// Raises the word to the slot's target (the stream proceeds) and frees the slot.
  void signal_and_release(const FlagSlot& s) noexcept;
  /// Runs `fn` while no stream waits on a word: new acquires wait until it returns, and it
  /// starts once every word handed out has been raised. Said once a second while it waits.
  void quiesce(const std::function<void()>& fn);
  void lock_for_fork() noexcept { mu_.lock(); }
  /// In a child, the words armed by the parent's operations and a quiesce running on one of
  /// its threads are the parent's: nothing here will raise or end them, so they are forgotten
  /// (those words are never handed out again).
  void unlock_after_fork(bool in_child) noexcept {
    if (in_child) {
      armed_ = 0;
      quiet_ = false;
    }
    mu_.unlock();
  }
  /// Test hook: every free word continues from `value` (to reach the wrap quickly).
  void advance_free_words(std::uint32_t value);

 private:
  struct Word {
    std::uint32_t* host;
    void* device;
    std::uint32_t value;
  };
  hipError_t grow();  // called with mu_ held; blocks are never freed (a stream may still read them)
  std::mutex mu_;
  std::vector<Word> words_;
  std::vector<std::uint32_t> free_;
  std::size_t armed_ = 0;  // words handed out and not yet raised: streams that may wait on one
  bool quiet_ = false;     // a quiesce runs: acquire waits
  std::condition_variable open_cv_, drained_cv_;
};

// ---- Streams --------------------------------------------------------------------------------------

struct StreamTable {
  std::mutex mu;
  std::unordered_map<hipStream_t, StreamFixed> flags;
  // Serialises the two enqueues of one submission per stream (striped), so that concurrent
  // submitters on one stream cannot interleave their hand-off and wait.
  std::mutex stripes[16];
  std::mutex& stripe(hipStream_t s) {
    return stripes[(reinterpret_cast<std::uintptr_t>(s) >> 4) % 16];
  }
};

/// The process's flag words and stream registrations (never destroyed: executor threads may use
/// them during exit).
FlagPool& flags();
StreamTable& streams();

/// Runs `fn` while no stream waits on an async operation's flag word: submissions wait until it
/// returns, and it starts once the operations in flight have finished. For freeing staging
/// memory: CUDA's hipHostFree and hipStreamDestroy hold the context's lock while the device
/// drains, and an executor thread raising a flag needs that lock for its copies, so freeing
/// while a stream waits on a flag never returns (doc/async-batch.md, bench/RESULTS.md).
void without_async_waits(const std::function<void()>& fn);

/// Test hook (async suite): every free flag word continues from `value`, so a test reaches the
/// 32-bit wrap in a few operations.
void advance_flag_words_for_test(std::uint32_t value);

/// fork() (the driver's atfork handlers): `prepare` takes the async state's locks, `after`
/// releases them; in the child it also forgets the parent's operations in flight, which no
/// thread of the child will ever finish.
void async_prepare_fork() noexcept;
void async_after_fork(bool in_child) noexcept;

}  // namespace hipfile::engine
