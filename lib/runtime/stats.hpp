// SPDX-License-Identifier: MIT
// I/O statistics (include/hipfile/hipfile_stats.h): counters sharded per thread with relaxed
// atomics, recorded once per request by do_io, read by summing the shards.
#pragma once

#include <hipfile/hipfile_stats.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace hipfile::engine {
struct Config;
}

namespace hipfile::engine::stats {

unsigned level() noexcept;
void set_level(unsigned level) noexcept;

/// A start time for record(); 0 (no clock read) while statistics are off.
std::uint64_t start() noexcept;
void record(hipFileStatsPath_t path, hipFileStatsOp_t op, int device, std::size_t bytes, std::uint64_t started,
            bool error) noexcept;

/// How bytes reached or left the file (hipFileStatsSource_t), counted as they move, from level 1.
enum class Source { Cache, Direct };
void count_moved(hipFileStatsPath_t path, hipFileStatsOp_t op, Source source, std::size_t bytes) noexcept;

/// The API calls that hipFile 0.5's level-1 statistics count (hipFileOpCounter_t ok/err).
enum class Call : int {
  HandleRegister, HandleDeregister, BufRegister, BufDeregister,
  BatchSetup, BatchSubmit, BatchCancel, BatchDestroy,
  BatchEnqueued,  // requests in a submit call (err: the call was refused)
  BatchComplete,  // requests reported by GetStatus (ok: complete; err: failed)
  Count
};
void count(Call call, bool ok, std::uint64_t n = 1) noexcept;

void snapshot(hipFileStatsL3_t& out) noexcept;
void reset() noexcept;

/// What hipFile 0.5's statistics are derived from (lib/api/stats_v05.cpp): per device, path and
/// operation, and the call counters, [call][0 = ok, 1 = err].
struct Raw {
  hipFileStatsCounters_t device[HIPFILE_STATS_MAX_DEVICES][hipFileStatsPathCount][hipFileStatsOpCount];
  std::uint64_t calls[static_cast<int>(Call::Count)][2];
};
void snapshot(hipFileStatsL3_t& ours, Raw& raw) noexcept;

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
