// SPDX-License-Identifier: MIT
#include "engine/driver.hpp"

#include <string_view>

#include "engine/batch.hpp"
#include "engine/log.hpp"
#include "engine/profile.hpp"
#include "engine/stats.hpp"
#include "fastpath/fastpath.hpp"

namespace hipfile::engine {

Driver& Driver::get() {
  static Driver* driver = new Driver;  // intentionally leaked: see the header
  return *driver;
}

void Driver::open_locked() {
  if (refs_++ == 0) {
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
    if (c.nvtx && std::string_view(profile::backend()) == "none")
      log::once("nvtx-none", log::Level::Info, "ProfileNvtx is on but this build has neither NVTX nor roctx");
    HIPFILE_LOG(Info, "driver open: threads %u, chunk %zu KiB, depth %u, inline up to %zu B, pinned limit %zu KiB",
                c.effective_threads(), c.chunk_size >> 10, c.staging_depth, c.inline_threshold,
                c.pinned_limit >> 10);
    // The fastpath is loaded here (dlopen / symbol lookup), never at library load.
    std::shared_ptr<fastpath::Fastpath> fp = fastpath::load(c);
    std::lock_guard lock(state_mu_);
    config_ = std::make_shared<const Config>(std::move(c));
    fastpath_ = std::move(fp);
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
  // Batches first (their queued operations are canceled), then registrations (each waits for
  // its in-flight I/O), then the engine, whose threads and staging memory go away with it.
  batch_destroy_all();
  files.clear();
  buffers.clear();
  std::shared_ptr<Engine> engine;
  std::shared_ptr<fastpath::Fastpath> fp;
  {
    std::lock_guard lock(state_mu_);
    engine = std::move(engine_);
    fp = std::move(fastpath_);
  }
  engine.reset();
  fp.reset();  // after the files: their fastpath registrations keep the library loaded anyway
  stats::on_last_close();
  params_.clear();  // cuFile: parameters return to their defaults at the last close
  HIPFILE_LOG(Info, "driver closed");
}

std::int64_t Driver::use_count() const {
  return refs_.load();
}

std::shared_ptr<const Config> Driver::config() const {
  std::lock_guard lock(state_mu_);
  return config_;
}

std::shared_ptr<Engine> Driver::engine() {
  std::lock_guard lock(state_mu_);
  if (!engine_) engine_ = std::make_shared<Engine>(*config_);
  return engine_;
}

std::shared_ptr<fastpath::Fastpath> Driver::fastpath() const {
  std::lock_guard lock(state_mu_);
  return fastpath_;
}

Status Driver::stage(const std::function<Status(Params&)>& change) {
  std::lock_guard lock(mu_);
  if (refs_ > 0) return Status::of(hipFileDriverAlreadyOpen);
  return change(params_);
}

Config Driver::effective_config() const {
  std::lock_guard lock(mu_);
  if (refs_ > 0) return *config();
  std::vector<Config::Problem> ignored;  // reported at open, not by every Get
  Config c = Config::from_environment(&ignored);
  params_.apply(c);
  return c;
}

Status Driver::set_limit(const std::function<Status(Config&)>& live, const std::function<Status(Params&)>& staged) {
  std::lock_guard lock(mu_);
  if (refs_ == 0) return staged(params_);
  Config c = *config();
  if (Status st = live(c); !st.ok()) return st;
  std::lock_guard state(state_mu_);
  const bool reshape = c.chunk_size != config_->chunk_size || c.pinned_limit != config_->pinned_limit;
  config_ = std::make_shared<const Config>(std::move(c));
  if (reshape) engine_.reset();  // later requests build an engine of the new shape
  return Status::success();
}

}  // namespace hipfile::engine
