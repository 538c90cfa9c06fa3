// SPDX-License-Identifier: MIT
#include "engine/driver.hpp"

namespace hipfile::engine {

Driver& Driver::get() {
  static Driver* driver = new Driver;  // intentionally leaked: see the header
  return *driver;
}

void Driver::open_locked() {
  if (refs_++ == 0) {
    std::lock_guard lock(state_mu_);
    config_ = Config::from_environment();
  }
}

Status Driver::open() {
  std::lock_guard lock(mu_);
  open_locked();
  return Status::success();
}

void Driver::open_implicitly() {
  std::lock_guard lock(mu_);
  if (refs_ == 0) open_locked();
}

Status Driver::close() {
  std::lock_guard lock(mu_);
  if (refs_ == 0) return Status::of(hipFileDriverNotInitialized);
  if (--refs_ == 0) teardown_locked();
  return Status::success();
}

void Driver::teardown_locked() {
  // Registrations first (each waits for its in-flight I/O), then the engine, whose threads
  // and staging memory go away with it.
  files.clear();
  buffers.clear();
  std::unique_ptr<Engine> engine;
  {
    std::lock_guard lock(state_mu_);
    engine = std::move(engine_);
  }
}

std::int64_t Driver::use_count() const {
  return refs_.load();
}

Config Driver::config() const {
  std::lock_guard lock(state_mu_);
  return config_;
}

Engine& Driver::engine() {
  std::lock_guard lock(state_mu_);
  if (!engine_) engine_ = std::make_unique<Engine>(config_);
  return *engine_;
}

}  // namespace hipfile::engine
