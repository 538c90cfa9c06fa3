// SPDX-License-Identifier: MIT
// Registered files: the client's fd number, the library's own buffered and O_DIRECT
// descriptors for it, and its direct-I/O alignment.
#pragma once

#include <hipfile/hipfile.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "engine/config.hpp"
#include "engine/inflight.hpp"
#include "engine/status.hpp"

namespace hipfile::engine {

struct File {
  int client_fd = -1;
  int buffered_fd = -1;   // our own reopen: positional I/O never sees the client's O_APPEND
  int direct_fd = -1;     // O_DIRECT reopen, -1 where the file system refuses O_DIRECT
  bool client_direct = false;         // the client's fd has O_DIRECT
  bool use_direct = false;            // O_DIRECT for aligned ranges (client's wish or forced)
  std::atomic<bool> direct_ok{true};  // cleared when the file system rejects a direct I/O
  std::atomic<bool> mapped_failed{false};  // set when the runtime cannot pin this file's pages
  std::uint32_t dio_align = 4096;     // file offset and length alignment for O_DIRECT
  std::uint32_t mem_align = 4096;     // memory alignment for O_DIRECT
  dev_t dev = 0;
  ino_t ino = 0;
  int access = 0;                     // O_ACCMODE bits of the client fd
  // buffered_fd is a duplicate of the client's fd (the reopen was refused) that has O_APPEND:
  // a pwrite through it would append wherever it was asked to write, so writes are refused.
  bool append_only = false;
  // Fastpath per-file registration (lib/fastpath): set once before the file is visible to I/O,
  // null = engine-only. Released (e.g. cuFileHandleDeregister) before the descriptors close.
  std::shared_ptr<void> fastpath_state;
  InFlight inflight;

  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();
};

class FileTable {
 public:
  /// Checks `fd` and opens the library's own descriptors for it. Touches no table, so a bad
  /// fd leaves the driver as it was.
  static Status prepare(int fd, std::shared_ptr<File>& out);
  /// Registers a prepared file. A registered fd number whose file changed since (the client
  /// closed it without deregistering and the number was reused) is stale: its registration is
  /// retired and the new file takes the number.
  Status insert(std::shared_ptr<File> file, const Config& config, hipFileHandle_t& out);
  /// Looks a handle up; an empty lease when it is not registered.
  Lease<File> find(hipFileHandle_t handle) const;
  /// Removes a handle, waiting for I/O on it to finish. False when it was not registered.
  bool remove(hipFileHandle_t handle);
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
