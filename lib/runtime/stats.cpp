// SPDX-License-Identifier: MIT
#include "runtime/stats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <new>

#include "io/config.hpp"
#include "staging/moved.hpp"
#include "sys/log.hpp"
#include "sys/output_file.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine::stats {

namespace {

constexpr int P = kPaths, O = kOps, B = kBuckets, D = kMaxDevices;
constexpr unsigned kShards = 33;  // 32 owned one at a time by a live thread, and one shared by the rest

using Counter = std::atomic<std::uint64_t>;

struct Counters {
  Counter ops, bytes, errors, time_ns;
};

// A shard per live thread that records, on its own cache lines (see my_shard).
struct alignas(64) Shard {
  std::atomic<bool> owned{false};  // a live thread writes it alone
  Counters path[P][O];
  Counter size_hist[P][O][B];
  Counter latency_hist[P][O][B];
  Counters device[D][P][O];  // from level 1: hipFile 0.5's per-GPU figures need it
  Counter moved[2][P][O];    // [Source]: page cache, O_DIRECT
};

constexpr int C = static_cast<int>(Call::Count);
Counter g_calls[C][2];  // registrations and batch calls: rare, so not sharded

Shard g_shards[kShards];  // zero-initialised, in .bss: nothing happens at load
std::atomic<unsigned> g_level{1};

std::mutex& file_mu() {
  static std::mutex* m = new std::mutex;  // leaked: used from the exit hook
  return *m;
}
std::string* g_file = nullptr;  // guarded by file_mu()
bool g_atexit = false;          // guarded by file_mu()

// Each thread takes a free shard for its lifetime and hands it back when it exits, keeping
// its counts there for the sums. A shard with one writer is counted with a plain load and
// store: a request records seven counts, and locked adds cost more than the rest of a 4 KiB
// read's bookkeeping (bench/HISTORY.md, "Session of 2026-12-02, night"). Threads past the owned shards
// share the last one, with locked adds.
struct MyShard {
  Shard* shard = nullptr;
  bool alone = false;
  MyShard() noexcept {
    for (unsigned i = 0; i + 1 < kShards && !shard; ++i)
      if (!g_shards[i].owned.exchange(true, std::memory_order_acquire)) {
        shard = &g_shards[i];
        alone = true;
      }
    if (!shard) shard = &g_shards[kShards - 1];
  }
  ~MyShard() {
    if (alone) shard->owned.store(false, std::memory_order_release);  // the next owner sees its counts
  }
};

struct Writer {
  Shard& s;
  bool alone;
  void add(Counter& c, std::uint64_t v) const noexcept {
    if (alone)
      c.store(c.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
    else
      c.fetch_add(v, std::memory_order_relaxed);
  }
};

Writer my_shard() noexcept {
  thread_local MyShard mine;
  return {*mine.shard, mine.alone};
}

int bucket(std::uint64_t v) noexcept {
  if (v == 0) return 0;
  int b = 63 - std::countl_zero(v);
  return b < B ? b : B - 1;
}

void add(Counter& c, std::uint64_t v) noexcept { c.fetch_add(v, std::memory_order_relaxed); }
std::uint64_t get(const Counter& c) noexcept { return c.load(std::memory_order_relaxed); }

void add_counters(const Writer& w, Counters& c, std::size_t bytes, std::uint64_t ns, bool error) noexcept {
  w.add(c.ops, 1);
  if (error)
    w.add(c.errors, 1);
  else
    w.add(c.bytes, bytes);
  w.add(c.time_ns, ns);
}

void sum(Totals& out, const Counters& in) noexcept {
  out.ops += get(in.ops);
  out.bytes += get(in.bytes);
  out.errors += get(in.errors);
  out.time_ns += get(in.time_ns);
}

std::uint64_t clock_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

const char* const kPathNames[P] = {"engine", "host", "cufile", "amd"};
const char* const kOpNames[O] = {"read", "write"};

void exit_hook() {
  std::string path;
  {
    std::lock_guard lock(file_mu());
    if (g_file) path = *g_file;
  }
  if (!path.empty()) write_report(path);
}

}  // namespace

unsigned level() noexcept { return g_level.load(std::memory_order_relaxed); }
void set_level(unsigned l) noexcept { g_level.store(l > 3 ? 3 : l, std::memory_order_relaxed); }

std::uint64_t start() noexcept { return level() == 0 ? 0 : clock_ns(); }

void record(Path path_slot, Direction dir, int device, std::size_t bytes, std::uint64_t started, bool error) noexcept {
  const unsigned l = level();
  const int path = static_cast<int>(path_slot), op = static_cast<int>(dir);
  if (l == 0 || started == 0 || path < 0 || path >= P || op < 0 || op >= O) return;
  const std::uint64_t ns = clock_ns() - started;
  const Writer w = my_shard();
  Shard& s = w.s;
  add_counters(w, s.path[path][op], bytes, ns, error);
  if (l >= 2) {
    w.add(s.size_hist[path][op][bucket(bytes)], 1);
    w.add(s.latency_hist[path][op][bucket(ns)], 1);
  }
  if (device >= 0) add_counters(w, s.device[device < D ? device : D - 1][path][op], bytes, ns, error);
}

void count_moved(Path path_slot, Direction dir, Source source, std::size_t bytes) noexcept {
  const int path = static_cast<int>(path_slot), op = static_cast<int>(dir);
  if (level() == 0 || bytes == 0 || path < 0 || path >= P || op < 0 || op >= O) return;
  const Writer w = my_shard();
  w.add(w.s.moved[static_cast<int>(source)][path][op], bytes);
}

namespace {

// The staging engine's count of moved bytes, in the statistics' slots.
void count_staged(MovedSlot slot, Direction dir, bool direct, std::size_t bytes) noexcept {
  count_moved(slot == MovedSlot::Host ? Path::Host : Path::Engine, dir, direct ? Source::Direct : Source::Cache, bytes);
}

}  // namespace

void count(Call call, bool ok, std::uint64_t n) noexcept {
  const int c = static_cast<int>(call);
  if (level() == 0 || c < 0 || c >= C) return;
  add(g_calls[c][ok ? 0 : 1], n);
}

void snapshot(Snapshot& out) noexcept {
  Raw* raw = new (std::nothrow) Raw;  // ~4 KiB: not on the caller's stack
  if (raw == nullptr) {
    out = Snapshot{};
    return;
  }
  snapshot(out, *raw);
  delete raw;
}

void snapshot(Snapshot& out, Raw& raw) noexcept {
  out = Snapshot{};
  raw = Raw{};
  out.version = kVersion;
  out.level = level();
  for (const Shard& s : g_shards) {
    for (int p = 0; p < P; ++p)
      for (int o = 0; o < O; ++o) {
        sum(out.path[p][o], s.path[p][o]);
        out.source[p][o].cache_bytes += get(s.moved[0][p][o]);
        out.source[p][o].direct_bytes += get(s.moved[1][p][o]);
        for (int b = 0; b < B; ++b) {
          out.size_hist[p][o][b] += get(s.size_hist[p][o][b]);
          out.latency_hist[p][o][b] += get(s.latency_hist[p][o][b]);
        }
      }
    for (int d = 0; d < D; ++d)
      for (int p = 0; p < P; ++p)
        for (int o = 0; o < O; ++o) {
          sum(out.device[d][o], s.device[d][p][o]);
          sum(raw.device[d][p][o], s.device[d][p][o]);
        }
  }
  for (int c = 0; c < C; ++c)
    for (int k = 0; k < 2; ++k) raw.calls[c][k] = get(g_calls[c][k]);
}

void reset() noexcept {
  auto zero = [](Counters& c) {
    c.ops.store(0, std::memory_order_relaxed);
    c.bytes.store(0, std::memory_order_relaxed);
    c.errors.store(0, std::memory_order_relaxed);
    c.time_ns.store(0, std::memory_order_relaxed);
  };
  for (Shard& s : g_shards) {
    for (int p = 0; p < P; ++p)
      for (int o = 0; o < O; ++o) {
        zero(s.path[p][o]);
        for (int b = 0; b < B; ++b) {
          s.size_hist[p][o][b].store(0, std::memory_order_relaxed);
          s.latency_hist[p][o][b].store(0, std::memory_order_relaxed);
        }
      }
    for (auto& dev : s.device)
      for (auto& path : dev)
        for (auto& c : path) zero(c);
    for (auto& source : s.moved)
      for (auto& path : source)
        for (auto& c : path) c.store(0, std::memory_order_relaxed);
  }
  for (auto& call : g_calls)
    for (auto& c : call) c.store(0, std::memory_order_relaxed);
}

namespace {

// The text report, line by line (doc/statistics.md).
struct ReportWriter {
  std::string out;

  template <class... A>
  void put(const char* fmt, A... args) {
    char line[256];
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  }
  void counters(const char* what, const char* name, const char* op, const Totals& c) {
    put("%s %s %s ops %llu bytes %llu errors %llu time_ns %llu\n", what, name, op,
        static_cast<unsigned long long>(c.ops), static_cast<unsigned long long>(c.bytes),
        static_cast<unsigned long long>(c.errors), static_cast<unsigned long long>(c.time_ns));
  }
  void paths_and_devices(const Snapshot& st) {
    for (int p = 0; p < P; ++p)
      for (int o = 0; o < O; ++o) counters("path", kPathNames[p], kOpNames[o], st.path[p][o]);
    for (int d = 0; d < D; ++d)
      for (int o = 0; o < O; ++o)
        if (st.device[d][o].ops != 0) {
          char dev[16];
          std::snprintf(dev, sizeof dev, "%d", d);
          counters("device", dev, kOpNames[o], st.device[d][o]);
        }
  }
  // "phase NAME count N time_ns N first_ns N" for each phase that ran.
  void phases() {
    sys::PhaseTime times[sys::kPhases];
    sys::phase_times(times);
    for (std::size_t i = 0; i < sys::kPhases; ++i)
      if (times[i].count != 0)
        put("phase %s count %llu time_ns %llu first_ns %llu\n", sys::phase_name(static_cast<sys::Phase>(i)),
            static_cast<unsigned long long>(times[i].count), static_cast<unsigned long long>(times[i].time_ns),
            static_cast<unsigned long long>(times[i].first_ns));
  }
  void sources(const Snapshot& st) {
    for (int p = 0; p < P; ++p)
      for (int o = 0; o < O; ++o)
        if (const MovedBytes& m = st.source[p][o]; m.cache_bytes != 0 || m.direct_bytes != 0)
          put("source %s %s cache_bytes %llu direct_bytes %llu\n", kPathNames[p], kOpNames[o],
              static_cast<unsigned long long>(m.cache_bytes), static_cast<unsigned long long>(m.direct_bytes));
  }
  void histogram(const char* what, const std::uint64_t (&h)[P][O][B]) {
    for (int p = 0; p < P; ++p)
      for (int o = 0; o < O; ++o) {
        std::string row;
        for (int b = 0; b < B; ++b)
          if (h[p][o][b] != 0) {
            char cell[64];
            std::snprintf(cell, sizeof cell, " %d:%llu", b, static_cast<unsigned long long>(h[p][o][b]));
            row += cell;
          }
        if (!row.empty()) out += std::string(what) + " " + kPathNames[p] + " " + kOpNames[o] + row + "\n";
      }
  }
};

}  // namespace

std::string report() {
  Snapshot* st = new Snapshot;  // ~13 KiB: not on the caller's stack
  snapshot(*st);
  ReportWriter w;
  w.put("hipfile-stats %u\n", kVersion);
  w.put("pid %d\n", static_cast<int>(::getpid()));
  w.put("level %u\n", st->level);
  w.paths_and_devices(*st);
  w.sources(*st);
  w.histogram("size_log2", st->size_hist);
  w.histogram("latency_ns_log2", st->latency_hist);
  w.phases();
  delete st;
  return std::move(w.out);
}

bool write_report(const std::string& requested) {
  std::string path = requested;
  if (path.empty()) {
    std::lock_guard lock(file_mu());
    if (g_file) path = *g_file;
  }
  if (path.empty()) return false;
  const std::string text = report();
  // No symlink in the path, never a FIFO or device, another user's file never replaced.
  int fd = sys::open_output_file(path.c_str(), sys::OutputMode::Replace);
  if (fd < 0) {
    log::once("stats-file=" + path, log::Level::Warn, "cannot write the statistics report to \"%s\": %s",
              path.c_str(), sys::output_file_error(-fd));
    return false;
  }
  bool ok = true;
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (!ok) HIPFILE_LOG(Warn, "short write of the statistics report to \"%s\"", path.c_str());
  return ok;
}

void on_open(const Config& config) {
  set_level(config.stats_level);
  set_moved_hook(&count_staged);
  std::lock_guard lock(file_mu());
  if (config.stats_file.empty()) {
    delete g_file;
    g_file = nullptr;
    return;
  }
  if (!g_file) g_file = new std::string;
  *g_file = config.stats_file;
  if (!g_atexit) {
    g_atexit = true;  // registered at the first open that wants a report, never at load
    std::atexit(exit_hook);
  }
}

void on_last_close() { exit_hook(); }

}  // namespace hipfile::engine::stats
