// SPDX-License-Identifier: MIT
#include "plan.hpp"

#include <algorithm>
#include <random>
#include <utility>

namespace hipfile::tools::io {

namespace {

// Part `part` of `parts` of `count` requests, by index: [first, last). Consecutive parts are
// consecutive runs, so the parts of a GPU's consecutive workers make that GPU's part.
std::pair<std::uint64_t, std::uint64_t> share(std::uint64_t count, std::uint64_t part, std::uint64_t parts) {
  return {count * part / parts, count * (part + 1) / parts};
}

}  // namespace

std::vector<Worker> make_plan(const Options& o, const std::vector<int>& devices) {
  std::vector<Request> all;
  std::uint64_t count = (o.total + o.io_size - 1) / o.io_size;
  all.reserve(count);
  if (o.access == Access::Sequential) {
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t off = i * o.io_size;
      all.push_back({off, std::min(o.io_size, o.total - off)});
    }
  } else {
    std::mt19937_64 rng(o.seed);
    std::uint64_t slots = (o.file_size - o.io_size) / 4096 + 1;
    std::uniform_int_distribution<std::uint64_t> pick(0, slots - 1);
    for (std::uint64_t i = 0; i < count; ++i) {
      std::uint64_t len = std::min(o.io_size, o.total - i * o.io_size);
      all.push_back({pick(rng) * 4096, len});
    }
  }

  std::size_t nworkers = devices.size() * static_cast<std::size_t>(o.threads);
  std::vector<Worker> workers(nworkers);
  for (std::size_t w = 0; w < nworkers; ++w) {
    Worker& worker = workers[w];
    worker.slot = w / static_cast<std::size_t>(o.threads);
    worker.device = devices[worker.slot];
    const auto [first, last] = share(all.size(), w, nworkers);
    worker.requests.assign(all.begin() + static_cast<std::ptrdiff_t>(first),
                           all.begin() + static_cast<std::ptrdiff_t>(last));
    for (const Request& r : worker.requests) worker.bytes += r.length;
  }
  if (o.file_per_device) {
    // Each GPU's contiguous part moves to offset 0 of its own file.
    std::vector<std::uint64_t> base(devices.size(), ~std::uint64_t{0});
    if (o.access == Access::Sequential)
      for (const Worker& w : workers)
        if (!w.requests.empty()) base[w.slot] = std::min(base[w.slot], w.requests.front().offset);
    for (Worker& w : workers) {
      w.file = w.slot;
      if (o.access == Access::Sequential)
        for (Request& r : w.requests) r.offset -= base[w.slot];
    }
  }
  return workers;
}

std::uint64_t largest_device_part(const Options& o, std::size_t devices) {
  // make_plan shares the requests out to workers; a GPU's threads are consecutive workers, so
  // its part is its share of `devices` parts (floor(c * s * t / (d * t)) = floor(c * s / d)).
  const std::uint64_t count = (o.total + o.io_size - 1) / o.io_size;
  std::uint64_t largest = 0;
  for (std::uint64_t s = 0; s < devices; ++s) {
    const auto [first, last] = share(count, s, devices);
    largest = std::max(largest, std::min(last * o.io_size, o.total) - std::min(first * o.io_size, o.total));
  }
  return largest;
}

std::uint64_t file_extent(const std::vector<Worker>& workers, std::size_t file) {
  std::uint64_t end = 0;
  for (const Worker& w : workers)
    if (w.file == file)
      for (const Request& r : w.requests) end = std::max(end, r.offset + r.length);
  return end;
}

std::uint64_t resident_head(const Request& r, double fraction) {
  auto head = static_cast<std::uint64_t>(static_cast<double>(r.length) * fraction);
  return head / 4096 * 4096;
}

std::vector<ByteRange> resident_ranges(const std::vector<Worker>& workers, double fraction) {
  std::vector<ByteRange> out;
  for (const Worker& w : workers)
    for (const Request& r : w.requests)
      if (std::uint64_t head = resident_head(r, fraction); head != 0) out.push_back({r.offset, head});
  return out;
}

std::vector<Worker> split_plan(const std::vector<Worker>& workers, double fraction, bool heads) {
  std::vector<Worker> out;
  for (const Worker& w : workers) {
    Worker& part = out.emplace_back(Worker{w.device, w.slot, {}, 0, w.file});
    for (const Request& r : w.requests) {
      const std::uint64_t head = resident_head(r, fraction);
      const Request piece = heads ? Request{r.offset, head} : Request{r.offset + head, r.length - head};
      if (piece.length == 0) continue;
      part.requests.push_back(piece);
      part.bytes += piece.length;
    }
  }
  return out;
}

std::vector<std::uint64_t> bytes_per_slot(const std::vector<Worker>& workers, std::size_t slots) {
  std::vector<std::uint64_t> out(slots, 0);
  for (const Worker& w : workers) out[w.slot] += w.bytes;
  return out;
}

std::uint64_t total_requests(const std::vector<Worker>& workers) {
  std::uint64_t n = 0;
  for (const Worker& w : workers) n += w.requests.size();
  return n;
}

}  // namespace hipfile::tools::io
