// SPDX-License-Identifier: MIT
// The library's one logger: five levels, stderr or a file, thread-safe, printf formatting.
// Configured at every driver open from the configuration (HIPFILE_LOG_LEVEL / HIPFILE_LOG_FILE /
// HIPFILE_LOG_DIR or the string parameters); before the first open it writes WARN and above to
// stderr. A message below the level costs one relaxed atomic load.
#pragma once

#include <atomic>
#include <string>

namespace hipfile::engine::log {

enum class Level : int { Error = 0, Warn = 1, Info = 2, Debug = 3, Trace = 4 };

/// "ERROR", "WARN", "INFO", "DEBUG", "TRACE".
const char* name(Level level) noexcept;
/// Case-insensitive level name (NOTICE is INFO, WARNING is WARN) or a digit 0-4.
bool parse(const char* text, Level& out) noexcept;

/// Sets the level and the destination: `path` empty means stderr. A file that cannot be opened
/// leaves the destination on stderr and says so there.
void configure(Level level, const std::string& path);

namespace detail {
extern std::atomic<int> g_level;
}
inline bool enabled(Level level) noexcept {
  return static_cast<int>(level) <= detail::g_level.load(std::memory_order_relaxed);
}

void write(Level level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
/// Like write, but only the first time for a given key in this process (e.g. "VAR=value").
void once(const std::string& key, Level level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

}  // namespace hipfile::engine::log

#define HIPFILE_LOG(level, ...)                                                              \
  do {                                                                                       \
    if (::hipfile::engine::log::enabled(::hipfile::engine::log::Level::level))               \
      ::hipfile::engine::log::write(::hipfile::engine::log::Level::level, __VA_ARGS__);      \
  } while (0)
