// SPDX-License-Identifier: MIT
// Replaces the library's system calls for one test: short counts, EINTR and errors on demand,
// and a record of which descriptors were used.
#pragma once

#include <atomic>
#include <mutex>
#include <set>

#include "io/config.hpp"
#include "sys/posix.hpp"

namespace hipfile::test {

/// Shapes every configuration read while it lives (Config::adjust_for_test): the fixed choices
/// no environment variable sets, such as the ramp or the mapped path's shape.
struct ScopedConfig {
  explicit ScopedConfig(void (*adjust)(engine::Config&)) { engine::Config::adjust_for_test(adjust); }
  ~ScopedConfig() { engine::Config::adjust_for_test(nullptr); }
  ScopedConfig(const ScopedConfig&) = delete;
  ScopedConfig& operator=(const ScopedConfig&) = delete;
};

struct SyscallScript {
  std::atomic<int> max_chunk{0};        // >0: each call moves at most this many bytes
  std::atomic<bool> eintr_every_other{false};
  std::atomic<int> fail_after{-1};      // >=0: calls after this many succeed fail with `fail_errno`
  std::atomic<int> fail_errno{EIO};
  std::atomic<int> calls{0};
  std::mutex mu;
  std::set<int> fds_used;
};

/// Installs the script for the lifetime of the object and restores the real calls after.
class ScopedSyscalls {
 public:
  ScopedSyscalls();
  ~ScopedSyscalls();
  SyscallScript& script() { return *current(); }
  static SyscallScript*& current();
};

}  // namespace hipfile::test
