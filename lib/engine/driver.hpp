// SPDX-License-Identifier: MIT
// The process-wide driver state behind the C API: reference count, registration tables,
// configuration, and the staging engine, which exists only while the driver is open and some
// I/O has needed it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "engine/buffer_table.hpp"
#include "engine/config.hpp"
#include "engine/engine.hpp"
#include "engine/file_table.hpp"
#include "engine/params.hpp"
#include "engine/status.hpp"

namespace hipfile::fastpath {
class Fastpath;
}

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
  std::int64_t use_count() const;
  bool is_open() const { return use_count() > 0; }

  /// The configuration in force (valid while open). A shared snapshot: every request reads it,
  /// so it is handed out without copying; a setter replaces it rather than changing it.
  std::shared_ptr<const Config> config() const;
  /// The staging engine, started on first use. Shared: a setter that changes the engine's shape
  /// while open drops the driver's reference, and requests in flight keep the old engine alive.
  std::shared_ptr<Engine> engine();
  /// The GPU-direct fastpath loaded at open (lib/fastpath), or null: the engine serves all I/O.
  std::shared_ptr<fastpath::Fastpath> fastpath() const;

  /// Parameter API (cuFile semantics). `change` edits the staged values; refused with
  /// DriverAlreadyOpen while open.
  Status stage(const std::function<Status(Params&)>& change);
  /// The configuration Get and GetProperties report: the one in force while open, else
  /// defaults < environment < staged parameters.
  Config effective_config() const;
  /// hipFileDriverSet*: while open, `live` edits the running configuration and the engine is
  /// rebuilt for later requests when its shape changed; while closed, `staged` stages the value.
  Status set_limit(const std::function<Status(Config&)>& live, const std::function<Status(Params&)>& staged);

  FileTable files;
  BufferTable buffers;

 private:
  Driver() = default;
  void open_locked();
  void teardown_locked();

  // mu_ orders open and close; state_mu_ guards what I/O reads. They are separate because a
  // closing thread waits (holding mu_) for in-flight I/O, which must still reach the engine.
  mutable std::mutex mu_;
  std::atomic<std::int64_t> refs_{0};  // written under mu_, read anywhere
  mutable std::mutex state_mu_;
  std::shared_ptr<const Config> config_ = std::make_shared<const Config>();
  std::shared_ptr<Engine> engine_;
  std::shared_ptr<fastpath::Fastpath> fastpath_;  // loaded at first open, dropped at last close
  Params params_;  // guarded by mu_
};

}  // namespace hipfile::engine
