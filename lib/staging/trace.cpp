// SPDX-License-Identifier: MIT
#include "staging/trace.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "sys/log.hpp"
#include "sys/output_file.hpp"

namespace hipfile::engine::trace {

namespace {

// Lines kept at most (about 100 bytes each); past it lines are counted, not kept.
constexpr std::size_t kMaxLines = std::size_t{1} << 20;

struct Store {
  std::mutex mu;
  std::string path;
  std::vector<std::string> lines;
  std::uint64_t dropped = 0;
  bool atexit_registered = false;
};

// Never destroyed: workers may still add lines while the process exits.
Store& store() {
  static auto* s = new Store;
  return *s;
}

std::atomic<std::uint64_t> g_requests{0};

// A small number per thread that adds lines, in the order the threads first did.
unsigned thread_number() noexcept {
  static std::atomic<unsigned> next{0};
  thread_local const unsigned mine = next.fetch_add(1, std::memory_order_relaxed);
  return mine;
}

void add(const char* text) noexcept {
  Store& s = store();
  std::lock_guard lock(s.mu);
  if (s.lines.size() >= kMaxLines) {
    ++s.dropped;
    return;
  }
  try {
    s.lines.emplace_back(text);
  } catch (...) {
    ++s.dropped;  // no memory for the line
  }
}

void write_at_exit() { (void)write(); }

}  // namespace

std::int64_t now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void on_open(const std::string& path) {
  Store& s = store();
  std::lock_guard lock(s.mu);
  s.path = path;
  detail::enabled.store(!path.empty(), std::memory_order_relaxed);
  if (!path.empty() && !s.atexit_registered) {
    s.atexit_registered = true;  // at the first open that asks for a trace, never at load
    std::atexit(write_at_exit);
  }
}

bool write() {
  Store& s = store();
  std::lock_guard lock(s.mu);
  if (s.path.empty()) return false;
  // As every file the library writes: no symbolic link in the path, never a FIFO or a device,
  // another user's file never replaced (sys/output_file).
  const int fd = sys::open_output_file(s.path.c_str(), sys::OutputMode::Replace);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "w");
  if (f == nullptr) {
    if (fd >= 0) ::close(fd);
    log::once("trace-file=" + s.path, log::Level::Warn, "cannot write the trace to \"%s\": %s", s.path.c_str(),
              fd < 0 ? sys::output_file_error(-fd) : "out of memory");
    return false;
  }
  std::fprintf(f, "# hipfile trace 1: times in ns of the steady clock; %llu lines dropped\n",
               static_cast<unsigned long long>(s.dropped));
  std::fprintf(f, "# request,id,offset,size,participants,begin,end\n");
  std::fprintf(f, "# copy,request,thread,offset,bytes,claimed,slot_free,read_done,queued,gpu_start,gpu_end\n");
  for (const std::string& line : s.lines) std::fprintf(f, "%s\n", line.c_str());
  return std::fclose(f) == 0;
}

std::uint64_t next_request() noexcept { return g_requests.fetch_add(1, std::memory_order_relaxed) + 1; }

void request(std::uint64_t id, off_t offset, std::size_t size, int participants, std::int64_t begin,
             std::int64_t end) {
  char line[160];
  std::snprintf(line, sizeof line, "request,%llu,%lld,%zu,%d,%lld,%lld", static_cast<unsigned long long>(id),
                static_cast<long long>(offset), size, participants, static_cast<long long>(begin),
                static_cast<long long>(end));
  add(line);
}

namespace {

// The trace's stream on `device` (current), made at its first traced request; null when it cannot
// be made. Never destroyed: the runtime may be gone when the process exits.
hipStream_t clock_stream(int device) noexcept {
  static auto* mu = new std::mutex;
  static auto* streams = new std::map<int, hipStream_t>;
  std::lock_guard lock(*mu);
  try {
    hipStream_t& s = (*streams)[device];
    if (s == nullptr && gpu::create_stream(s, false) != hipSuccess) {
      gpu::clear_last_error();
      s = nullptr;
    }
    return s;
  } catch (...) {
    return nullptr;  // no memory for the entry
  }
}

}  // namespace

Clock::Clock(int device) noexcept {
  gpu::DeviceGuard guard(device);
  hipStream_t stream = guard.status() == hipSuccess ? clock_stream(device) : nullptr;
  if (stream == nullptr || gpu::create_timed_event(reference_) != hipSuccess) {
    gpu::clear_last_error();
    reference_ = nullptr;
    return;
  }
  const std::int64_t asked = now();
  if (gpu::record_event(reference_, stream) != hipSuccess || gpu::wait_event(reference_) != hipSuccess) {
    gpu::clear_last_error();
    return;
  }
  host_ = asked + (now() - asked) / 2;
}

Clock::~Clock() {
  if (reference_) (void)gpu::destroy_event(reference_);
}

std::int64_t Clock::host_time(hipEvent_t event) const noexcept {
  float ms = 0;
  if (host_ == 0 || gpu::elapsed_ms(ms, reference_, event) != hipSuccess) {
    gpu::clear_last_error();
    return 0;
  }
  return host_ + static_cast<std::int64_t>(static_cast<double>(ms) * 1e6);
}

LaneLog::~LaneLog() {
  for (const Copy& c : copies_) {
    (void)gpu::destroy_event(c.start);
    (void)gpu::destroy_event(c.end);
  }
  for (hipEvent_t e : spare_) (void)gpu::destroy_event(e);
  if (pending_start_) (void)gpu::destroy_event(pending_start_);
}

hipEvent_t LaneLog::take_event() noexcept {
  if (!spare_.empty()) {
    hipEvent_t e = spare_.back();
    spare_.pop_back();
    return e;
  }
  hipEvent_t e = nullptr;
  if (gpu::create_timed_event(e) != hipSuccess) {  // with timing, unlike the engine's own events
    gpu::clear_last_error();
    return nullptr;
  }
  return e;
}

bool LaneLog::before_copy() noexcept {
  if (pending_start_ == nullptr) pending_start_ = take_event();
  if (pending_start_ == nullptr) return false;
  if (gpu::record_event(pending_start_, stream_) != hipSuccess) {
    gpu::clear_last_error();
    return false;
  }
  return true;
}

void LaneLog::after_copy(std::uint64_t request, off_t offset, std::size_t bytes, const ChunkTimes& t) noexcept {
  hipEvent_t end = take_event();
  if (end == nullptr) return;
  if (gpu::record_event(end, stream_) != hipSuccess) {
    gpu::clear_last_error();
    give_back(end);
    return;
  }
  try {
    copies_.push_back({request, offset, bytes, t, now(), pending_start_, end});
    pending_start_ = nullptr;
  } catch (...) {
    give_back(end);
  }
}

void LaneLog::give_back(hipEvent_t e) noexcept {
  try {
    spare_.push_back(e);
  } catch (...) {
    (void)gpu::destroy_event(e);  // no memory to keep it for the next copy
  }
}

void LaneLog::flush(const Clock* clock) noexcept {
  const unsigned thread = thread_number();
  for (const Copy& c : copies_) {
    auto host = [&](hipEvent_t e) { return clock ? clock->host_time(e) : 0; };
    char line[256];
    std::snprintf(line, sizeof line, "copy,%llu,%u,%lld,%zu,%lld,%lld,%lld,%lld,%lld,%lld",
                  static_cast<unsigned long long>(c.request), thread, static_cast<long long>(c.offset), c.bytes,
                  static_cast<long long>(c.times.claimed), static_cast<long long>(c.times.slot_free),
                  static_cast<long long>(c.times.read_done), static_cast<long long>(c.queued),
                  static_cast<long long>(host(c.start)), static_cast<long long>(host(c.end)));
    add(line);
    give_back(c.start);
    give_back(c.end);
  }
  copies_.clear();
}

}  // namespace hipfile::engine::trace
