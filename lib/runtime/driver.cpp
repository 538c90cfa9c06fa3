// SPDX-License-Identifier: MIT
#include "runtime/driver.hpp"

#include <pthread.h>

#include <chrono>
#include <cstdlib>
#include <new>
#include <optional>
#include <string_view>
#include <thread>

#include "fastpath/fastpath.hpp"
#include "runtime/async_state.hpp"
#include "runtime/batch_table.hpp"
#include "runtime/profile.hpp"
#include "runtime/stats.hpp"
#include "staging/trace.hpp"
#include "sys/log.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

Driver& Driver::get() {
  static Driver* driver = new Driver;  // intentionally leaked: see the header
  return *driver;
}

Driver::Driver() {
  // A failure leaves fork() as it was without the handlers: a child of an open driver would
  // then wait for the parent's threads, so it is said.
  if (::pthread_atfork(&Driver::prepare_fork, &Driver::after_fork_in_parent, &Driver::after_fork_in_child) != 0)
    HIPFILE_LOG(Warn, "pthread_atfork failed: a child forked while the driver is open cannot do I/O");
}

// The order of every path that takes more than one: open/close (mu_), then a table, then the
// instance (state_mu_); the async state's locks are never taken under them.
void Driver::prepare_fork() noexcept {
  Driver& d = get();
  d.mu_.lock();
  d.files.lock_for_fork();
  d.buffers.lock_for_fork();
  d.state_mu_.lock();
  async_prepare_fork();
}

void Driver::unlock_after_fork() noexcept {
  async_after_fork(false);
  state_mu_.unlock();
  buffers.unlock_after_fork();
  files.unlock_after_fork();
  mu_.unlock();
}

void Driver::after_fork_in_parent() noexcept { get().unlock_after_fork(); }

void Driver::after_fork_in_child() noexcept {
  Driver& d = get();
  d.adopt_in_child();
  async_after_fork(true);
  d.state_mu_.unlock();
  d.buffers.remake_lock_in_child();
  d.files.remake_lock_in_child();
  d.mu_.unlock();
}

namespace {

// The parent's instances in a child: their engines' and executors' threads do not exist here,
// so destroying one would join threads that are not there. Kept reachable for ever.
void keep_parents_instance(std::shared_ptr<Instance> instance) noexcept {
  static auto* kept = new std::vector<std::shared_ptr<Instance>>;
  try {
    kept->push_back(std::move(instance));
  } catch (...) {
    // No room in the record: kept unrecorded. With no memory even for that, destroying it would
    // join threads that are not there, which never returns: the child ends instead.
    if (new (std::nothrow) std::shared_ptr<Instance>(std::move(instance)) == nullptr) std::abort();
  }
}

}  // namespace

// With the locks prepare_fork took, in the child (whose only thread this is).
void Driver::adopt_in_child() noexcept {
  for (auto& r : retired_) keep_parents_instance(std::move(r));
  retired_.clear();
  if (!current_) return;
  std::shared_ptr<Instance> parents = std::move(current_);
  try {
    current_ = std::make_shared<Instance>(Instance::ForkedChild{}, *parents);
  } catch (...) {
    // No memory for the child's instance: requests find no instance and fail as on a closed
    // driver (hipFileDriverNotInitialized and the like) rather than wait for the parent's threads.
    current_.reset();
  }
  keep_parents_instance(std::move(parents));
}

void Driver::open_locked() {
  if (refs_++ == 0) {
    sys::PhaseTimer timed(sys::Phase::DriverOpen);
    std::vector<Config::Problem> problems;
    Config c = Config::from_environment(&problems);
    params_.apply(c);  // defaults < environment < parameters set through the API
    // The logger first, so that configuration problems reach the configured destination.
    log::configure(static_cast<log::Level>(c.log_level), c.log_path());
    for (const Config::Problem& p : problems) log::once(p.key, log::Level::Warn, "%s", p.message.c_str());
    if (c.force_compat && !c.allow_compat) {
      // Upstream fails every I/O in this state. Forcing compat mode asks for the compat path, so
      // that wish wins; the contradiction is a configuration error, said once here.
      log::once("force-compat-without-compat", log::Level::Error,
                "configuration error: compat mode is forced (HIPFILE_FORCE_COMPAT_MODE / ForceCompatMode) "
                "but not allowed (HIPFILE_ALLOW_COMPAT_MODE / PropertiesAllowCompatMode): compat mode stays allowed");
      c.allow_compat = true;
    }
    stats::on_open(c);
    profile::set_enabled(c.nvtx);
    trace::on_open(c.trace_file);
    if (c.nvtx && std::string_view(profile::backend()) == "none")
      log::once("nvtx-none", log::Level::Info, "ProfileNvtx is on but this build has neither NVTX nor roctx");
    HIPFILE_LOG(Info, "driver open: threads %u, chunk %zu KiB, depth %u, inline up to %zu B, pinned limit %zu KiB",
                c.effective_threads(), c.chunk_size >> 10, c.staging_depth, c.inline_threshold,
                c.pinned_limit >> 10);
    // The fastpath is loaded here (dlopen / symbol lookup), never at library load.
    std::shared_ptr<fastpath::Fastpath> fp;
    {
      sys::PhaseTimer fastpath_timed(sys::Phase::FastpathOpen);
      fp = fastpath::load(c);
    }
    auto instance = std::make_shared<Instance>(std::move(c), std::move(fp));
    std::lock_guard lock(state_mu_);
    current_ = std::move(instance);
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

namespace {

// Destroys the instances on this thread, once no request holds any of them. The tables were
// emptied first, so only requests finishing their last step and async operations that their
// streams have not reached yet can hold one; the wait for the latter is said once a second. An
// instance that frees an engine also waits until no stream waits on an async operation
// (Instance::EngineCell); one whose engine lives on in its successor waits for nothing, so a
// setter never waits for work its caller has yet to queue.
void destroy(std::vector<std::shared_ptr<Instance>>& dead) {
  if (dead.empty()) return;
  using Clock = std::chrono::steady_clock;
  for (auto& instance : dead) {
    auto said = Clock::now();
    for (unsigned spins = 0; instance.use_count() > 1; ++spins) {
      if (spins < 1000) {
        std::this_thread::yield();
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (Clock::now() - said >= std::chrono::seconds(1)) {
        said = Clock::now();
        HIPFILE_LOG(Warn, "driver close waits for %ld operations still in flight (async operations whose "
                    "streams have not reached them)", static_cast<long>(instance.use_count() - 1));
      }
    }
  }
  dead.clear();
}

}  // namespace

Status Driver::close() {
  Instances dead;  // destroyed after the lock is released
  std::optional<sys::PhaseTimer> timed;
  {
    std::lock_guard lock(mu_);
    if (refs_ == 0) return Status::of(Error::DriverNotInitialized);
    if (--refs_ == 0) {
      timed.emplace(sys::Phase::Teardown);
      teardown_locked(dead);
    }
  }
  destroy(dead);
  return Status::success();
}

void Driver::teardown_locked(Instances& dead) {
  // Batches first (their queued operations are canceled), then registrations (each waits for
  // its in-flight I/O), then the instances, whose engines' threads and staging memory and
  // whose fastpath go with them (after the files: their fastpath registrations keep the
  // library loaded anyway).
  batch_destroy_all();
  files.clear();
  buffers.clear();
  {
    std::lock_guard lock(state_mu_);
    dead.push_back(std::move(current_));
  }
  for (auto& r : retired_) dead.push_back(std::move(r));
  retired_.clear();
  stats::on_last_close();
  (void)trace::write();
  params_.clear();  // cuFile: parameters return to their defaults at the last close
  HIPFILE_LOG(Info, "driver closed");
}

void Driver::collect_idle_locked(Instances& dead) {
  for (auto it = retired_.begin(); it != retired_.end();) {
    // Requests lease only the current instance, so a retired one that only the driver holds
    // can never be leased again.
    if (it->use_count() == 1) {
      dead.push_back(std::move(*it));
      it = retired_.erase(it);
    } else {
      ++it;
    }
  }
}

// Timed as file registration without the driver open that register_open may do.
Status Driver::register_file(int fd, FileId& out) {
  const std::uint64_t began = sys::phase_clock_ns();
  std::shared_ptr<File> file;
  if (Status st = FileTable::prepare(fd, file); !st.ok()) return st;
  const std::uint64_t prepared_ns = sys::phase_clock_ns() - began;
  return register_open([&] {
    const std::uint64_t inserting = sys::phase_clock_ns();
    const std::shared_ptr<Instance> instance = lease();
    if (!instance) return Status::of(Error::InternalError);  // a forked child short of memory
    fastpath::attach(instance->fastpath(), *file);
    Status st = files.insert(std::move(file), instance->config(), out);
    sys::add_phase(sys::Phase::FileRegistration, prepared_ns + sys::phase_clock_ns() - inserting);
    return st;
  });
}

std::int64_t Driver::use_count() const {
  return refs_.load();
}

std::shared_ptr<Instance> Driver::lease() const {
  std::lock_guard lock(state_mu_);
  return current_;
}

Status Driver::stage(const std::function<Status(Params&)>& change) {
  std::lock_guard lock(mu_);
  if (refs_ > 0) return Status::of(Error::DriverAlreadyOpen);
  return change(params_);
}

Config Driver::effective_config() const {
  std::lock_guard lock(mu_);
  if (refs_ > 0)
    if (std::shared_ptr<Instance> in_force = lease()) return in_force->asked();
  std::vector<Config::Problem> ignored;  // reported at open, not by every Get
  Config c = Config::from_environment(&ignored);
  params_.apply(c);
  return c;
}

Config Driver::properties_config() const {
  {
    std::lock_guard lock(mu_);
    if (refs_ > 0)
      if (std::shared_ptr<Instance> in_force = lease()) return in_force->config();
  }
  return effective_config();
}

Status Driver::set_limit(const std::function<Status(Config&)>& live, const std::function<Status(Params&)>& staged) {
  Instances idle;  // destroyed after the lock is released
  {
    std::lock_guard lock(mu_);
    if (refs_ == 0) return staged(params_);
    std::shared_ptr<Instance> before = lease();
    if (!before) return Status::of(Error::InternalError);  // a forked child that had no memory for one
    Config c = before->asked();
    if (Status st = live(c); !st.ok()) return st;
    auto next = std::make_shared<Instance>(std::move(c), *before);
    {
      std::lock_guard state(state_mu_);
      current_ = std::move(next);
    }
    retired_.push_back(std::move(before));
    collect_idle_locked(idle);
  }
  destroy(idle);
  return Status::success();
}

}  // namespace hipfile::engine
