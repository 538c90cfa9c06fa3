// SPDX-License-Identifier: MIT
// Every engine knob in one place. Values start at built-in defaults, are overridden by HIPFILE_*
// environment variables, and by the parameter API while the driver is closed. The user settings
// are listed in doc/configuration.md; the fields no variable reads are fixed choices, kept here so
// that the engine reads one structure and tests can shape it (adjust_for_test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::engine {

/// How engine workers wait for the copies of their staging slots: spinning in the runtime
/// (HIP's default), asking the runtime between short sleeps, or sleeping until the runtime
/// wakes them (blocking-sync events). See doc/configuration.md, HIPFILE_WAIT.
enum class WaitMode { spin, poll, block };

struct Config {
  unsigned threads = 0;                    // worker threads; 0 = automatic
  std::size_t chunk_size = 4u << 20;       // bytes per staged chunk (4 KiB multiple); bench/HISTORY.md, "How the defaults were chosen"
  unsigned staging_depth = 2;              // staging buffers per worker and device
  std::size_t inline_threshold = 1u << 20; // requests up to this run on the caller's thread
  bool allow_compat = true;                // HIPFILE_ALLOW_COMPAT_MODE: the staging engine may serve I/O
  bool force_compat = false;               // HIPFILE_FORCE_COMPAT_MODE: never use a fastpath
  bool force_odirect = false;              // use O_DIRECT even when the client fd did not ask
  bool durable_writes = false;             // fdatasync once at the end of every write call
  bool allow_system_memory = true;         // host and managed memory as I/O targets
  bool parallel_io = true;                 // false: every request runs inline on the caller's thread
  bool mapped_reads = true;                // page-cache-resident reads: GPU copies straight from the page cache
  bool direct_reads_from_cache = true;     // an O_DIRECT client's cached chunks are read from the page cache
  // The mapped path's shape and the read-path tuner: fixed, not read from the environment. The
  // sweeps kept these defaults (bench/HISTORY.md, "Session of 2026-12-02, day"), and which way
  // of reading is fastest is the machine's, so the tuner decides it (staging/path_tuner.hpp).
  std::size_t map_threshold = 32u << 20;   // smallest read that may take the mapped path
  std::size_t map_chunk = 64u << 20;       // bytes pinned and copied per step on the mapped path
  unsigned map_workers = 1;                // workers on the mapped path at once (pinning serialises)
  unsigned map_max_threads = 4;            // mapped path only for engines of at most this many workers
  bool map_alone = false;                  // a mapped read runs on its mappers only: no stagers beside them
  bool tune_read_path = true;              // such engines measure mapped, mapped alone and staged, and read the fastest way
  WaitMode wait = WaitMode::poll;          // HIPFILE_WAIT: how engine workers wait; bench/HISTORY.md, "Session of 2026-12-02, morning"
  std::size_t prefetch_window = 128u << 20; // cold buffered reads keep this much asked of the disk ahead (WILLNEED); 0 = off; fixed: bench/HISTORY.md, "Session of 2026-12-02, day"
  std::size_t first_chunk = 1u << 20;      // staged reads start with pieces this small, doubling up to the chunk; 0 = off; fixed: bench/HISTORY.md, "The per-call bubble"
  // Pinned staging memory the engine may hold, all devices together (cuFile's
  // max_device_pinned_mem_size_kb, default 32 GiB). The engine shrinks threads, then chunk size,
  // then depth to fit; it never goes below one thread, one 64 KiB slot.
  std::size_t pinned_limit = std::size_t{32} << 30;
  // Set by shape_engine (not a knob): lanes per device in each of the engine's two pools for
  // requests run on their callers' threads; callers past it wait for a lane.
  unsigned inline_lanes = 0;
  unsigned async_threads = 0;              // HIPFILE_ASYNC_THREADS: executor threads; 0 = automatic
  bool unsupported_file_systems = false;   // HIPFILE_UNSUPPORTED_FILE_SYSTEMS: amd-ais on any file system

  // Reported by hipFileDriverGetProperties and the parameter API; no engine effect (see
  // doc/configuration.md).
  bool use_poll_mode = false;
  std::size_t poll_threshold_kb = 4;
  std::size_t max_device_cache_kb = 131072;
  std::size_t per_buffer_cache_kb = 1024;
  std::size_t max_request_parallelism = 0;  // 0 = every worker
  std::size_t io_batch_size = 128;
  std::size_t batch_timeout_ms = 0;
  bool api_check_aggressive = false;
  bool nvtx = false;
  bool use_pcip2pdma = false;
  bool prefer_io_uring = false;
  bool skip_topology_detection = false;
  bool stream_memops_bypass = false;

  // HIPFILE_CUFILE_LIBRARY: the libcufile to load instead of the platform's search (the test
  // suite's fake; a libcufile outside the loader's paths). Empty: nvidia builds search the usual
  // names, other builds load no cuFile (lib/fastpath/cufile.cpp).
  std::string cufile_library;

  // Observability.
  unsigned stats_level = 1;     // HIPFILE_STATS_LEVEL: 0 off, 1 counters, 2 + histograms, 3 + per device
  std::string stats_file;       // HIPFILE_STATS_FILE: report written at last close, exit, hipFileStatsWrite
  std::string trace_file;       // HIPFILE_TRACE_FILE: timeline of staged reads (staging/trace.hpp); empty = off
  int log_level = 1;            // log::Level; WARN
  std::string log_file;         // HIPFILE_LOG_FILE; empty = stderr (or log_dir)
  std::string log_dir;          // HIPFILE_LOG_DIR: log to <dir>/hipfile_<pid>.log when log_file is empty

  /// Worker count after resolving 0 = automatic.
  unsigned effective_threads() const noexcept;
  /// Lanes per device in each pool for requests run on callers' threads: the set workers, or
  /// with automatic workers one per core (2-16), since callers are not bounded by the workers.
  unsigned effective_caller_lanes() const noexcept;
  /// Executor thread count after resolving 0 = automatic: one per core, 8-16 (small requests
  /// run on the executor thread itself).
  unsigned effective_async_threads() const noexcept;

  /// Defaults overridden by the environment. Malformed values are ignored; each is described in
  /// `problems` as {key, message} (key = "VAR=value", for log::once), or logged at once as a
  /// warning when `problems` is null.
  struct Problem {
    std::string key, message;
  };
  static Config from_environment(std::vector<Problem>* problems);
  static Config from_environment() { return from_environment(nullptr); }

  /// Test seam: `adjust` runs on every configuration read from the environment, after it, so a
  /// test can set what is a fixed choice and no longer a variable (the ramp, the prefetch
  /// window, the mapped path's shape, the tuner). Null removes it.
  static void adjust_for_test(void (*adjust)(Config&)) noexcept;

  /// Where the log goes: log_file, else <log_dir>/hipfile_<pid>.log, else "" (stderr).
  std::string log_path() const;
};

/// Parses "4M", "512k", "1G", "4096" (binary multiples). False on malformed input or overflow.
bool parse_size(const char* text, std::size_t& out) noexcept;
/// Parses a plain decimal count ("12"); false on anything else or overflow.
bool parse_count(const char* text, std::size_t& out) noexcept;
/// Parses true/false/1/0/yes/no/on/off, case-insensitive.
bool parse_bool(const char* text, bool& out) noexcept;

}  // namespace hipfile::engine
