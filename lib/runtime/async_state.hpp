// SPDX-License-Identifier: MIT
// What stream-ordered I/O keeps across its operations: the registered streams and the
// parameters each fixes, with the fork hooks the driver calls. Apart from async.cpp so that the
// driver, which async operations include, does not include them back.
#pragma once

#include <hip/hip_runtime_api.h>

#include <mutex>
#include <unordered_map>

namespace hipfile::engine {

/// Which of an async operation's parameters a registered stream fixes at submission (the value
/// then stands); the others are read again when the stream reaches the operation.
struct StreamFixed {
  bool size = false;
  bool file_offset = false;
  bool buffer_offset = false;
};

struct StreamTable {
  std::mutex mu;
  std::unordered_map<hipStream_t, StreamFixed> flags;
};

/// The process's stream registrations (never destroyed: a host function may run during exit).
StreamTable& streams();

/// fork() (the driver's atfork handlers): `prepare` takes the stream table's lock, `after`
/// releases it in both processes.
void async_prepare_fork() noexcept;
void async_after_fork(bool in_child) noexcept;

}  // namespace hipfile::engine
