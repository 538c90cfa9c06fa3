// SPDX-License-Identifier: MIT
// Words a caller's stream waits on (hipStreamWaitValue32) until stream-ordered I/O's executor has
// finished a pread or pwrite into host memory. Only the CPU raises a word, after I/O that needs
// no GPU work: a stream waiting on one never waits for device work queued anywhere, so neither a
// free in another thread (which drains the device) nor a hardware queue shared with other
// streams can hold the release back. A blocking host function would wait as safely, but CUDA
// runs every stream's host functions on one thread, so streams would take turns (bench/RESULTS.md,
// "Stream-ordered I/O").
//
// Pinned, device-mapped 32-bit words in blocks that are never freed (a stream may still read
// one). A word's value only grows: an operation takes it at its current value (`base`) and its
// j-th use waits for base + j, so a word is reused without waiting for anything. A word whose
// value would wrap is retired.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace hipfile::engine {

class FlagWords {
 public:
  struct Word {
    std::uint32_t* host = nullptr;
    void* device = nullptr;
    std::uint32_t base = 0;
    std::uint32_t index = 0;
  };
  static constexpr std::size_t kBlockWords = 1024;

  /// Appends `n` words that may each be used `uses` times to `out`; on failure `out` is as it
  /// was. Allocating a block happens outside the lock that give_back takes.
  hipError_t take(std::size_t n, std::uint32_t uses, std::vector<Word>& out);
  /// Returns words whose every use has been waited for. No allocation, no HIP call.
  void give_back(std::vector<Word>& words) noexcept;
  /// The `use`-th use of `w` is over (1-based): a stream waiting for it proceeds.
  static void raise(const Word& w, std::uint32_t use) noexcept;

  void lock_for_fork() noexcept { mu_.lock(); }
  void unlock_after_fork() noexcept { mu_.unlock(); }

 private:
  struct Entry {
    std::uint32_t* host;
    void* device;
    std::uint32_t value;
  };
  hipError_t grow();
  std::mutex mu_;
  std::vector<Entry> words_;
  std::vector<std::uint32_t> free_;
};

/// The process's words (never destroyed: a stream may read one during exit).
FlagWords& flag_words();

}  // namespace hipfile::engine
