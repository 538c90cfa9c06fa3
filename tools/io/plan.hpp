// SPDX-License-Identifier: MIT
// Which requests each I/O thread issues. Every measurement of a run (hipFile, raw pread, naive)
// replays the same plan, so their figures compare the same bytes at the same offsets.
#pragma once

#include "options.hpp"
#include "page_cache.hpp"

#include <cstdint>
#include <vector>

namespace hipfile::tools::io {

struct Request {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct Worker {
  int device = 0;      // GPU id
  std::size_t slot = 0;  // index of that GPU in the run's device list
  std::vector<Request> requests;
  std::uint64_t bytes = 0;
  std::size_t file = 0;  // the data file its requests address: 0, or the slot with --file-per-device
};

/// Sequential: [0, total) cut into io_size requests, each thread a contiguous run of them, and the
/// threads of one GPU together one contiguous part. Random: total / io_size requests at 4 KiB
/// aligned offsets in [0, file_size - io_size], from a seeded generator (the same every run).
/// With --file-per-device each GPU's workers address that GPU's file, and a sequential part
/// starts at offset 0 of it (random offsets are drawn over each file's --file-size).
std::vector<Worker> make_plan(const Options& options, const std::vector<int>& devices);

/// The bytes of the largest part of a pass that one of `devices` GPUs moves (the requests are
/// shared out by count, so parts differ by at most one request).
std::uint64_t largest_device_part(const Options& options, std::size_t devices);

/// The end of the last byte that any worker of `file` addresses: what a hot run puts into the
/// page cache of that file (sequential; random runs spread over the whole file).
std::uint64_t file_extent(const std::vector<Worker>& workers, std::size_t file);

/// --resident: the head of every request that is put into the page cache, `fraction` of its
/// length rounded down to 4 KiB (so an O_DIRECT rest stays aligned).
std::uint64_t resident_head(const Request& r, double fraction);
/// The page-cache ranges of a --resident pass: every request's resident head.
std::vector<ByteRange> resident_ranges(const std::vector<Worker>& workers, double fraction);
/// The same workers with each request cut to its resident head (heads = true) or to the rest
/// (heads = false); empty pieces are left out. The parts measurement replays these.
std::vector<Worker> split_plan(const std::vector<Worker>& workers, double fraction, bool heads);

/// Requests in one pass, all workers together.
std::uint64_t total_requests(const std::vector<Worker>& workers);

/// Bytes each device's workers move, indexed by slot.
std::vector<std::uint64_t> bytes_per_slot(const std::vector<Worker>& workers, std::size_t slots);

}  // namespace hipfile::tools::io
