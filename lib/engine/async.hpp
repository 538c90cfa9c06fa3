// SPDX-License-Identifier: MIT
// Stream-ordered (async) I/O and the executor that batch I/O shares with it.
//
// An async read or write puts two things on the caller's stream: a host function that only
// hands the operation to the executor (it never blocks, so streams sharing the runtime's
// callback thread are not serialised), then hipStreamWaitValue32 on a pinned, device-mapped flag
// word, so the stream itself waits. An executor thread reads the deferred parameters, runs the
// I/O through do_io (the staging engine's own lanes and streams do the copies), stores the
// bytes result and then raises the flag word: the stream proceeds. Where the wait-value call is
// unavailable the submission fails with hipFileAsyncNotSupported; nothing blocks in a host
// function. An error return always means that nothing of the operation will run.
//
// Bytes-result convention (async *bytes_p and batch event `ret`), one rule for both:
//   >= 0             bytes moved (short at end of file, or the prefix moved before a failure)
//   -errno           a system call failed (range -1 .. -4095, e.g. -EIO = -5), because the
//                    executor thread's errno cannot reach the caller; never "-1, see errno"
//   -hipFileOpError  any other failure (<= -5000), e.g. -hipFileInvalidValue for a size that
//                    grew after submission, -hipFileHandleNotRegistered for a handle deregistered
//                    before the stream reached the operation, -hipFileHipDriverError for a HIP
//                    runtime failure inside the I/O.
#pragma once

#include <hipfile/hipfile.h>

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <list>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/status.hpp"

namespace hipfile::engine {

/// The bytes-result convention above.
ssize_t async_result(const IoResult& r) noexcept;

/// Checks [base + buffer_offset, + size) against the registration or allocation holding `base`
/// and the offsets' signs and overflow: the checks do_io makes, without the I/O.
Status check_region(const void* base, std::size_t size, hoff_t file_offset, hoff_t buffer_offset);

/// A small pool of threads that run whole operations (async and batch), several at once.
/// Started on first use (never at library load); its threads idle between operations and live
/// for the rest of the process. HIPFILE_ASYNC_THREADS sets the size (default: one per core,
/// between 8 and 16).
class Executor {
 public:
  using Tasks = std::list<std::function<void()>>;
  static Executor& get();
  /// Queues `task`; never blocks on I/O (only on the queue's mutex). May throw (allocation);
  /// nothing is queued then.
  void post(std::function<void()> task);
  /// Queues every task of `prepared` (moved out), allocating nothing: for host callbacks and for
  /// all-or-nothing submissions, whose nodes are made before anything is committed.
  void post(Tasks& prepared) noexcept;

 private:
  Executor();
  void main();
  std::mutex mu_;
  std::condition_variable wake_;
  Tasks queue_;
  std::vector<std::thread> threads_;
};

/// HIPFILE_ASYNC_THREADS (1-256, parsed with overflow checks), else one per core in 8-16.
unsigned async_threads_from_environment();

/// Test hook (async suite): every free flag word continues from `value`, so a test reaches the
/// 32-bit wrap in a few operations.
void advance_flag_words_for_test(std::uint32_t value);

hipFileError_t stream_register(hipStream_t stream, unsigned flags);
hipFileError_t stream_deregister(hipStream_t stream);

hipFileError_t submit_async(Direction dir, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                            hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                            hipStream_t stream);

}  // namespace hipfile::engine
