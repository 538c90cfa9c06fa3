// SPDX-License-Identifier: MIT
#include "sys/log.hpp"

#include <fcntl.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <set>

#include "sys/output_file.hpp"

namespace hipfile::engine::log {

namespace detail {
std::atomic<int> g_level{static_cast<int>(Level::Warn)};
}

namespace {

std::mutex& mu() {
  static std::mutex* m = new std::mutex;  // leaked: usable from exit handlers
  return *m;
}
int g_fd = STDERR_FILENO;       // guarded by mu()
std::string* g_path = nullptr;  // guarded by mu()

void emit(Level level, const char* fmt, va_list ap) {
  char msg[1024];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  tm local{};
  ::localtime_r(&tv.tv_sec, &local);
  char line[1200];
  int n = std::snprintf(line, sizeof line, "%02d:%02d:%02d.%06ld hipfile[%d] %s: %s\n", local.tm_hour,
                        local.tm_min, local.tm_sec, static_cast<long>(tv.tv_usec), static_cast<int>(::getpid()),
                        name(level), msg);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) >= sizeof line) n = sizeof line - 1;
  std::lock_guard lock(mu());
  // One write per line: lines from several threads (or processes sharing the file) never mix.
  ssize_t w = ::write(g_fd, line, static_cast<std::size_t>(n));
  (void)w;
}

}  // namespace

const char* name(Level level) noexcept {
  switch (level) {
    case Level::Error: return "ERROR";
    case Level::Warn: return "WARN";
    case Level::Info: return "INFO";
    case Level::Debug: return "DEBUG";
    case Level::Trace: return "TRACE";
  }
  return "?";
}

bool parse(const char* text, Level& out) noexcept {
  if (text == nullptr) return false;
  struct Entry {
    const char* word;
    Level level;
  };
  static const Entry table[] = {{"ERROR", Level::Error}, {"WARN", Level::Warn},   {"WARNING", Level::Warn},
                                {"INFO", Level::Info},   {"NOTICE", Level::Info}, {"DEBUG", Level::Debug},
                                {"TRACE", Level::Trace}, {"0", Level::Error},     {"1", Level::Warn},
                                {"2", Level::Info},      {"3", Level::Debug},     {"4", Level::Trace}};
  for (const Entry& e : table)
    if (strcasecmp(text, e.word) == 0) return out = e.level, true;
  return false;
}

void configure(Level level, const std::string& path) {
  std::string failed;
  int failed_errno = 0;
  {
    std::lock_guard lock(mu());
    const bool same = (path.empty() && g_path == nullptr) || (g_path != nullptr && *g_path == path);
    if (!same) {
      if (g_fd != STDERR_FILENO) ::close(g_fd);
      g_fd = STDERR_FILENO;
      delete g_path;
      g_path = nullptr;
      if (!path.empty()) {
        int fd = sys::open_output_file(path.c_str(), sys::OutputMode::Append);
        if (fd >= 0) {
          g_fd = fd;
          g_path = new std::string(path);
        } else {
          failed = path;
          failed_errno = -fd;
        }
      }
    }
  }
  detail::g_level.store(static_cast<int>(level), std::memory_order_relaxed);
  if (!failed.empty())
    once("logfile=" + failed, Level::Error, "cannot open log file \"%s\" (%s): logging to stderr", failed.c_str(),
         sys::output_file_error(failed_errno));
}

void write(Level level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(level, fmt, ap);
  va_end(ap);
}

void once(const std::string& key, Level level, const char* fmt, ...) {
  if (!enabled(level)) return;
  {
    static std::set<std::string>* seen = new std::set<std::string>;  // leaked like mu()
    std::lock_guard lock(mu());
    if (!seen->insert(key).second) return;
  }
  va_list ap;
  va_start(ap, fmt);
  emit(level, fmt, ap);
  va_end(ap);
}

}  // namespace hipfile::engine::log
