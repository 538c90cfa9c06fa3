// SPDX-License-Identifier: MIT
// The process-wide driver state behind the C API: reference count, registration tables, and
// the driver instance of the open (lib/runtime/instance.hpp): configuration in force, engine,
// fastpath.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "io/config.hpp"
#include "io/status.hpp"
#include "runtime/buffer_table.hpp"
#include "runtime/file_table.hpp"
#include "runtime/instance.hpp"
#include "runtime/params.hpp"
#include "staging/engine.hpp"

namespace hipfile::engine {

class Driver {
 public:
  /// The one driver. Built on first use (never at library load) and never destroyed, so no
  /// static-destruction order at exit can pull state from under a running I/O.
  static Driver& get();

  Status open();
  Status close();
  /// Opens the driver if (and only if) it is closed: registration's implicit open.
  void open_implicitly();
  /// Registration: the implicit open and `insert` (which adds to a table) under the open/close
  /// lock, so that a concurrent last close cannot tear the driver down between them and leave a
  /// registration behind in a closed driver. Returns what `insert` returns.
  template <class F>
  auto register_open(F&& insert) {
    std::lock_guard lock(mu_);
    if (refs_ == 0) open_locked();
    return insert();
  }
  /// Registers the client's `fd`: a descriptor that cannot be used leaves the driver untouched
  /// (no implicit open); else, with the driver open, the fastpath registers the file (refused:
  /// engine-only) before it becomes visible to I/O as `out`.
  Status register_file(int fd, FileId& out);
  std::int64_t use_count() const;
  bool is_open() const { return use_count() > 0; }

  /// The instance in force, leased for one request (one lock round-trip): its configuration,
  /// engine and fastpath are used together. Null while the driver is closed.
  std::shared_ptr<Instance> lease() const;

  /// Parameter API (cuFile semantics). `change` edits the staged values; refused with
  /// DriverAlreadyOpen while open.
  Status stage(const std::function<Status(Params&)>& change);
  /// The configuration the parameter getters report: as set on the instance in force while
  /// open, else defaults < environment < staged parameters.
  Config effective_config() const;
  /// What hipFileDriverGetProperties reports: the instance's configuration in force while open
  /// (the engine's shape included), else effective_config().
  Config properties_config() const;
  /// hipFileDriverSet*: while open, `live` edits the configuration as set and a new instance
  /// serves later requests (with a new engine when the engine's shape changed); while closed,
  /// `staged` stages the value. Instances no request holds any more are torn down here, on the
  /// setter's thread, after the locks are released.
  Status set_limit(const std::function<Status(Config&)>& live, const std::function<Status(Params&)>& staged);

  FileTable files;
  BufferTable buffers;

 private:
  Driver();
  using Instances = std::vector<std::shared_ptr<Instance>>;
  // fork() (pthread_atfork, registered when the driver is built): the driver's locks are taken
  // in a fixed order before it and released after it in both processes. In the child the
  // instances are the parent's, their threads absent: they are kept, never used nor destroyed,
  // and a copy with an engine and executor of its own serves the child.
  static void prepare_fork() noexcept;
  static void after_fork_in_parent() noexcept;
  static void after_fork_in_child() noexcept;
  void unlock_after_fork() noexcept;
  void adopt_in_child() noexcept;
  void open_locked();
  /// Empties the tables and hands every instance to `dead`, for the caller to destroy after
  /// releasing mu_.
  void teardown_locked(Instances& dead);
  /// Moves the retired instances that no request holds into `dead`. Under mu_.
  void collect_idle_locked(Instances& dead);

  // mu_ orders open and close; state_mu_ guards what I/O reads. They are separate because a
  // closing thread waits (holding mu_) for in-flight I/O, which must still reach the engine.
  mutable std::mutex mu_;
  std::atomic<std::int64_t> refs_{0};  // written under mu_, read anywhere
  mutable std::mutex state_mu_;
  std::shared_ptr<Instance> current_;  // guarded by state_mu_; null while closed
  Instances retired_;  // guarded by mu_: replaced by a setter, maybe still leased
  Params params_;  // guarded by mu_
};

}  // namespace hipfile::engine
