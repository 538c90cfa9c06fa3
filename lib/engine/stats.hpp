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

void snapshot(hipFileStatsL3_t& out) noexcept;
void reset() noexcept;

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
