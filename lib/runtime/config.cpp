// SPDX-License-Identifier: MIT
#include "io/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <iterator>
#include <string_view>
#include <thread>

#include "runtime/env.hpp"
#include "sys/log.hpp"

namespace hipfile::engine {

unsigned Config::effective_threads() const noexcept {
  if (threads != 0) return threads;
  // One thread's page-cache reads fill only part of the host's link, so it takes many to fill it
  // (see bench/HISTORY.md, "The host's limits"); past 12, more workers moved no more bytes and
  // cost more CPU per byte (see bench/HISTORY.md, "Session of 2026-12-02, evening"). More than
  // the machine's cores only adds contention.
  unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(hw == 0 ? 4u : hw, 2u, 12u);
}

unsigned Config::effective_caller_lanes() const noexcept {
  if (threads != 0) return threads;
  unsigned hw = std::thread::hardware_concurrency();
  return std::clamp(hw == 0 ? 4u : hw, 2u, 16u);
}

unsigned Config::effective_async_threads() const noexcept {
  if (async_threads != 0) return async_threads;
  // More threads than the engine's workers only queue large requests behind them, which cost
  // many reads in flight much of their rate (see bench/HISTORY.md, "Session of 2026-12-01, afternoon").
  return std::clamp(std::thread::hardware_concurrency(), 8u, 16u);
}

bool parse_size(const char* text, std::size_t& out) noexcept {
  // strtoull alone would skip spaces and accept a sign ("-1" wraps to the largest value).
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text) return false;
  unsigned shift = 0;
  if (*end != '\0') {
    switch (std::tolower(static_cast<unsigned char>(*end))) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      default: return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end != '\0') return false;
  }
  if (shift && v > (~0ull >> shift)) return false;
  out = static_cast<std::size_t>(v << shift);
  return true;
}

bool parse_count(const char* text, std::size_t& out) noexcept {
  if (text == nullptr || *text == '\0') return false;
  std::size_t v = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    const auto digit = static_cast<std::size_t>(*p - '0');
    if (v > (SIZE_MAX - digit) / 10) return false;  // overflow: out of range, never wrapped
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

bool parse_bool(const char* text, bool& out) noexcept {
  if (text == nullptr) return false;
  static const char* const yes[] = {"true", "1", "yes", "on"};
  static const char* const no[] = {"false", "0", "no", "off"};
  for (const char* y : yes)
    if (strcasecmp(text, y) == 0) return out = true, true;
  for (const char* n : no)
    if (strcasecmp(text, n) == 0) return out = false, true;
  return false;
}

std::string Config::log_path() const {
  if (!log_file.empty()) return log_file;
  if (!log_dir.empty()) {
    struct stat st{};
    if (::stat(log_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return log_dir + "/hipfile_" + std::to_string(::getpid()) + ".log";
  }
  return {};
}

namespace {

std::atomic<void (*)(Config&)> g_adjust_for_test{nullptr};

// The variables from_environment reads: doc/configuration.md describes each, and the two lists
// change together.
constexpr const char* kSettings[] = {
    "HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_STAGING_DEPTH", "HIPFILE_INLINE_THRESHOLD",
    "HIPFILE_MAX_PINNED_MEMORY", "HIPFILE_PARALLEL_IO", "HIPFILE_ALLOW_COMPAT_MODE", "HIPFILE_FORCE_COMPAT_MODE",
    "HIPFILE_FORCE_ODIRECT", "HIPFILE_DURABLE_WRITES", "HIPFILE_MAPPED_READS", "HIPFILE_DIRECT_READS_FROM_CACHE",
    "HIPFILE_WAIT", "HIPFILE_ALLOW_SYSTEM_MEMORY", "HIPFILE_ASYNC_THREADS", "HIPFILE_UNSUPPORTED_FILE_SYSTEMS",
    "HIPFILE_PROFILE_NVTX", "HIPFILE_CUFILE_LIBRARY", "HIPFILE_STATS_LEVEL", "HIPFILE_STATS_FILE",
    "HIPFILE_TRACE_FILE", "HIPFILE_LOG_LEVEL", "HIPFILE_LOG_FILE", "HIPFILE_LOG_DIR",
};

// Knobs of experiments that ended, and what took their place. Named apart from a typo so that
// whoever still sets one learns it was retired, not misspelt.
struct Retired {
  const char* name;
  const char* instead;
};
constexpr Retired kRetired[] = {
    {"HIPFILE_BLOCKING_WAIT", "set HIPFILE_WAIT=block"},
    {"HIPFILE_FIRST_CHUNK", "the ramp's first piece is fixed"},
    {"HIPFILE_PREFETCH_WINDOW", "the cold-read window is fixed"},
    {"HIPFILE_MAP_THRESHOLD", "the mapped path's shape is fixed"},
    {"HIPFILE_MAP_CHUNK", "the mapped path's shape is fixed"},
    {"HIPFILE_MAP_WORKERS", "the mapped path's shape is fixed"},
    {"HIPFILE_MAP_MAX_THREADS", "the mapped path's shape is fixed; HIPFILE_MAPPED_READS=false turns it off"},
    {"HIPFILE_MAP_ALONE", "the read-path tuner chooses"},
    {"HIPFILE_TUNE_READ_PATH", "the read-path tuner always chooses"},
};

// Read by the project's own tools and tests, not by the library.
constexpr const char* kNotLibrary[] = {"HIPFILE_TEST_DIR", "HIPFILE_LOAD_CORRUPT"};
constexpr const char kNotLibraryPrefix[] = "HIPFILE_STRESS_";

bool listed(std::string_view name, const char* const* first, const char* const* last) {
  return std::find_if(first, last, [&](const char* n) { return name == n; }) != last;
}

struct EnvReader {
  std::vector<Config::Problem>* problems;

  void complain(const char* name, const char* value, const char* expected) {
    std::string key = std::string(name) + "=" + value;
    std::string msg = std::string("ignoring ") + name + "=\"" + value + "\": expected " + expected;
    if (problems) {
      problems->push_back({std::move(key), std::move(msg)});
    } else {
      log::once(key, log::Level::Warn, "%s", msg.c_str());
    }
  }

  // Reads `name` with `parse` into `out`; false when it is unset, or malformed or outside
  // [min, max] (said, with `expected` followed by the range).
  template <class Parse>
  bool bounded(const char* name, std::size_t& out, std::size_t min, std::size_t max, Parse parse,
               const std::string& expected, const char* to) {
    const char* v = env::get(name);
    if (v == nullptr) return false;
    if (parse(v, out) && out >= min && out <= max) return true;
    complain(name, v, (expected + std::to_string(min) + to + std::to_string(max)).c_str());
    return false;
  }

  // A plain decimal count, parsed with overflow checks: 4294967297 is out of range, not 1.
  void count(const char* name, unsigned& field, std::size_t min, std::size_t max) {
    std::size_t parsed = 0;
    if (bounded(name, parsed, min, max, parse_count, "", "-")) field = static_cast<unsigned>(parsed);
  }

  void boolean(const char* name, bool& field) {
    const char* v = env::get(name);
    if (v == nullptr) return;
    if (!parse_bool(v, field)) complain(name, v, "true/false/1/0/yes/no/on/off");
  }

  void wait_mode(const char* name, WaitMode& field) {
    const char* v = env::get(name);
    if (v == nullptr) return;
    const std::string s = v;
    if (s == "spin") field = WaitMode::spin;
    else if (s == "poll") field = WaitMode::poll;
    else if (s == "block") field = WaitMode::block;
    else complain(name, v, "spin, poll or block");
  }

  void size(const char* name, std::size_t& field, std::size_t min, std::size_t max) {
    std::size_t parsed = 0;
    if (bounded(name, parsed, min, max, parse_size, "a size such as 4096, 512k, 4M, 1G between ", " and "))
      field = parsed;
  }

  // A HIPFILE_* variable the library does not read is most likely a misspelt or retired setting:
  // silently ignored, it would leave the user believing it in force. Names only, never values;
  // a privileged process reads no variable, so it has none to warn about.
  void unknown_names() {
    if (env::privileged()) return;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string_view entry = *e;
      if (entry.rfind("HIPFILE_", 0) != 0) continue;
      const std::string_view name = entry.substr(0, entry.find('='));
      if (listed(name, std::begin(kSettings), std::end(kSettings)) ||
          listed(name, std::begin(kNotLibrary), std::end(kNotLibrary)) || name.rfind(kNotLibraryPrefix, 0) == 0)
        continue;
      const auto retired = std::find_if(std::begin(kRetired), std::end(kRetired),
                                        [&](const Retired& r) { return name == r.name; });
      const bool was = retired != std::end(kRetired);
      std::string key = std::string(was ? "retired:" : "unknown:") + std::string(name);
      std::string msg = "ignoring " + std::string(name) +
                        (was ? std::string(": retired (") + retired->instead + ")"
                             : std::string(": not a setting of this library (doc/configuration.md lists them)"));
      if (problems) {
        problems->push_back({std::move(key), std::move(msg)});
      } else {
        log::once(key, log::Level::Warn, "%s", msg.c_str());
      }
    }
  }

  // A path names a file to load, append to or replace: a privileged process takes none from
  // its (unprivileged) caller's environment, and says so.
  void path(const char* name, std::string& field) {
    if (env::path_ignored(name)) {
      std::string msg = std::string("ignoring ") + name + ": this process is set-user-ID, set-group-ID or has " +
                        "capabilities, and takes no path from the environment";
      if (problems) {
        problems->push_back({std::string("privileged:") + name, std::move(msg)});
      } else {
        log::once(std::string("privileged:") + name, log::Level::Warn, "%s", msg.c_str());
      }
      return;
    }
    if (const char* v = env::get(name)) field = v;
  }
};

}  // namespace

Config Config::from_environment(std::vector<Problem>* problems) {
  Config c;
  EnvReader env{problems};
  std::size_t threads = c.threads;
  env.size("HIPFILE_THREADS", threads, 0, 256);
  c.threads = static_cast<unsigned>(threads);
  env.size("HIPFILE_CHUNK_SIZE", c.chunk_size, 64u << 10, 1u << 30);
  c.chunk_size = (c.chunk_size + 4095) & ~std::size_t{4095};
  std::size_t depth = c.staging_depth;
  env.size("HIPFILE_STAGING_DEPTH", depth, 1, 16);
  c.staging_depth = static_cast<unsigned>(depth);
  env.size("HIPFILE_INLINE_THRESHOLD", c.inline_threshold, 0, std::size_t{1} << 40);
  env.size("HIPFILE_MAX_PINNED_MEMORY", c.pinned_limit, 64u << 10, std::size_t{1} << 50);
  env.boolean("HIPFILE_PARALLEL_IO", c.parallel_io);
  env.boolean("HIPFILE_ALLOW_COMPAT_MODE", c.allow_compat);
  env.boolean("HIPFILE_FORCE_COMPAT_MODE", c.force_compat);
  env.boolean("HIPFILE_FORCE_ODIRECT", c.force_odirect);
  env.boolean("HIPFILE_DURABLE_WRITES", c.durable_writes);
  env.boolean("HIPFILE_MAPPED_READS", c.mapped_reads);
  env.boolean("HIPFILE_DIRECT_READS_FROM_CACHE", c.direct_reads_from_cache);
  env.wait_mode("HIPFILE_WAIT", c.wait);
  env.boolean("HIPFILE_ALLOW_SYSTEM_MEMORY", c.allow_system_memory);
  env.count("HIPFILE_ASYNC_THREADS", c.async_threads, 1, 256);
  env.boolean("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", c.unsupported_file_systems);
  env.boolean("HIPFILE_PROFILE_NVTX", c.nvtx);
  env.path("HIPFILE_CUFILE_LIBRARY", c.cufile_library);
  std::size_t stats = c.stats_level;
  env.size("HIPFILE_STATS_LEVEL", stats, 0, 3);
  c.stats_level = static_cast<unsigned>(stats);
  env.path("HIPFILE_STATS_FILE", c.stats_file);
  env.path("HIPFILE_TRACE_FILE", c.trace_file);
  if (const char* v = engine::env::get("HIPFILE_LOG_LEVEL")) {
    log::Level level;
    if (log::parse(v, level))
      c.log_level = static_cast<int>(level);
    else
      env.complain("HIPFILE_LOG_LEVEL", v, "ERROR, WARN, INFO, DEBUG or TRACE");
  }
  env.path("HIPFILE_LOG_FILE", c.log_file);
  env.path("HIPFILE_LOG_DIR", c.log_dir);
  env.unknown_names();
  if (auto adjust = g_adjust_for_test.load(std::memory_order_relaxed)) adjust(c);
  return c;
}

void Config::adjust_for_test(void (*adjust)(Config&)) noexcept { g_adjust_for_test.store(adjust); }

}  // namespace hipfile::engine
