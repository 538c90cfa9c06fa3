// SPDX-License-Identifier: MIT
// Registered files by handle: the table that gives each registered file (io/file.hpp) its
// handle, finds it again for I/O and waits for its I/O when it is removed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "io/config.hpp"
#include "io/file.hpp"
#include "io/inflight.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

/// A registered file as the C API hands it out (lib/api casts it to and from hipFileHandle_t):
/// a number never handed out twice, tagged so that it looks neither like a small integer nor
/// like a valid heap pointer.
using FileId = std::uintptr_t;

class FileTable {
 public:
  /// Checks `fd` and opens the library's own descriptors for it. Touches no table, so a bad
  /// fd leaves the driver as it was.
  static Status prepare(int fd, std::shared_ptr<File>& out);
  /// Registers a prepared file. A registered fd number whose file changed since (the client
  /// closed it without deregistering and the number was reused) is stale: its registration is
  /// retired and the new file takes the number.
  Status insert(std::shared_ptr<File> file, const Config& config, FileId& out);
  /// Looks a handle up; an empty lease when it is not registered.
  Lease<File> find(FileId id) const;
  /// Removes a handle, waiting for I/O on it to finish. False when it was not registered.
  bool remove(FileId id);
  /// Removes everything (last driver close).
  void clear();
  /// fork(): the table's lock is held across it (the driver's atfork handlers), so that no
  /// other thread's lookup can leave the child's table locked for good.
  void lock_for_fork() { mu_.lock(); }
  void unlock_after_fork() { mu_.unlock(); }
  /// In the child the lock is made anew, not unlocked: a write lock records the thread that
  /// took it, which the child's thread is not, so unlocking it there would undo a read lock.
  void remake_lock_in_child() { new (&mu_) std::shared_mutex; }

 private:
  std::shared_ptr<File> take(std::uintptr_t key);  // caller holds mu_ exclusively

  mutable std::shared_mutex mu_;
  std::unordered_map<std::uintptr_t, std::shared_ptr<File>> by_handle_;
  std::unordered_map<int, std::uintptr_t> by_fd_;
  std::uintptr_t next_id_ = 1;
};

}  // namespace hipfile::engine
