// SPDX-License-Identifier: MIT
// I/O statistics: counters sharded per thread with relaxed atomics, recorded once per request by
// do_io, read by summing the shards into a Snapshot. lib/api gives it the C shape of
// include/hipfile/hipfile_stats.h (same slots, numbers and fields).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "io/request.hpp"

namespace hipfile::engine {
struct Config;
}

namespace hipfile::engine::stats {

inline constexpr unsigned kVersion = 2;  // of the report and the snapshot's layout
inline constexpr int kPaths = 4, kOps = 2, kBuckets = 48, kMaxDevices = 16;

/// Who served a request; an operation is its Direction (Read = 0, Write = 1).
enum class Path : int { Engine = 0, Host = 1, Cufile = 2, Amd = 3 };

struct Totals {
  std::uint64_t ops = 0;      // requests completed, failed ones included
  std::uint64_t bytes = 0;    // bytes moved by successful requests
  std::uint64_t errors = 0;   // requests that failed
  std::uint64_t time_ns = 0;  // total time spent in the requests
};

/// How the bytes of a path and operation reached or left the file.
struct MovedBytes {
  std::uint64_t cache_bytes = 0;
  std::uint64_t direct_bytes = 0;
};

/// Every counter, summed over the shards at one moment.
struct Snapshot {
  std::uint32_t version = kVersion;
  std::uint32_t level = 0;  // in force when read
  Totals path[kPaths][kOps];
  std::uint64_t size_hist[kPaths][kOps][kBuckets];    // log2 buckets of bytes, from level 2
  std::uint64_t latency_hist[kPaths][kOps][kBuckets]; // log2 buckets of ns, from level 2
  Totals device[kMaxDevices][kOps];
  MovedBytes source[kPaths][kOps];
};

unsigned level() noexcept;
void set_level(unsigned level) noexcept;

/// A start time for record(); 0 (no clock read) while statistics are off.
std::uint64_t start() noexcept;
void record(Path path, Direction op, int device, std::size_t bytes, std::uint64_t started,
            bool error) noexcept;

/// How bytes reached or left the file (MovedBytes), counted as they move, from level 1.
enum class Source { Cache, Direct };
void count_moved(Path path, Direction op, Source source, std::size_t bytes) noexcept;

/// The API calls that hipFile 0.5's level-1 statistics count (hipFileOpCounter_t ok/err).
enum class Call : int {
  HandleRegister, HandleDeregister, BufRegister, BufDeregister,
  BatchSetup, BatchSubmit, BatchCancel, BatchDestroy,
  BatchEnqueued,  // requests in a submit call (err: the call was refused)
  BatchComplete,  // requests reported by GetStatus (ok: complete; err: failed)
  Count
};
void count(Call call, bool ok, std::uint64_t n = 1) noexcept;

void snapshot(Snapshot& out) noexcept;
void reset() noexcept;

/// What hipFile 0.5's statistics are derived from (lib/api/stats_v05.cpp): per device, path and
/// operation, and the call counters, [call][0 = ok, 1 = err].
struct Raw {
  Totals device[kMaxDevices][kPaths][kOps];
  std::uint64_t calls[static_cast<int>(Call::Count)][2];
};
void snapshot(Snapshot& ours, Raw& raw) noexcept;

/// The text report (doc/statistics.md).
std::string report();
/// Writes the report to `path` (0600, O_NOFOLLOW). Empty path: the configured HIPFILE_STATS_FILE.
/// False when there is nowhere to write or the write failed (logged).
bool write_report(const std::string& path);

/// At driver open: level and report file from the configuration; registers the exit hook once.
void on_open(const Config& config);
/// At the last close: writes the report when a file is configured.
void on_last_close();

}  // namespace hipfile::engine::stats
