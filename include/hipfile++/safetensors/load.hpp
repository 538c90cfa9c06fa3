// SPDX-License-Identifier: MIT
/**
 * @file safetensors/load.hpp
 * @brief load(): a checkpoint's tensors (all, or a subset) into device memory, every shard
 *        and device read in parallel.
 */
#pragma once

#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../device_buffer.hpp"
#include "../file.hpp"
#include "checkpoint.hpp"
#include "detail/plan.hpp"
#include "error.hpp"
#include "loaded.hpp"

namespace hipfile::safetensors {

/// What load() loads and where.
struct LoadOptions {
  /// The device of every tensor; -1: the calling thread's current device.
  int device = -1;
  /// When set, the device of each tensor (overrides device), e.g. layers split over GPUs.
  std::function<int(const TensorInfo&)> placement;
  /// When not empty, only these tensors (each must exist: no_such_tensor otherwise).
  std::vector<std::string> names;
  /// When set, only the tensors it accepts (after names).
  std::function<bool(const TensorInfo&)> filter;
  /// When set, called after each read with (bytes read so far, bytes to read), from the
  /// reading threads, one call at a time. Reads are then cut into progress_step pieces.
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  std::uint64_t progress_step = std::uint64_t{1} << 30;
};

namespace detail {

/// Checkpoint indices of the selected tensors, in checkpoint order.
inline Result<std::vector<std::size_t>> select(const Checkpoint& c, const LoadOptions& o) {
  std::vector<char> wanted(c.tensors().size(), o.names.empty() ? 1 : 0);
  for (const auto& name : o.names) {
    const TensorInfo* t = c.find(name);
    if (t == nullptr)
      return fail(Errc::no_such_tensor, c.index_path().empty() ? c.shards().front().path : c.index_path(), name,
                  "is not in the checkpoint");
    wanted[static_cast<std::size_t>(t - c.tensors().data())] = 1;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < wanted.size(); ++i)
    if (wanted[i] && (!o.filter || o.filter(c.tensors()[i]))) out.push_back(i);
  return out;
}

/// The device of each selected tensor, each checked against the devices the runtime has.
inline Result<std::vector<int>> place(const Checkpoint& c, const std::vector<std::size_t>& selected, const LoadOptions& o) {
  int count = 0, current = 0;
  if (hipError_t e = hipGetDeviceCount(&count); e != hipSuccess)
    return fail(Errc::device_error, "", "", "hipGetDeviceCount", hipfile::Error::from_hip(e));
  if (hipError_t e = hipGetDevice(&current); e != hipSuccess)
    return fail(Errc::device_error, "", "", "hipGetDevice", hipfile::Error::from_hip(e));
  std::vector<int> devices;
  for (std::size_t i : selected) {
    const TensorInfo& t = c.tensors()[i];
    const int d = o.placement ? o.placement(t) : (o.device < 0 ? current : o.device);
    if (d < 0 || d >= count)
      return fail(Errc::invalid_argument, c.shards()[t.shard].path, t.name,
                  "device " + std::to_string(d) + " does not exist (" + std::to_string(count) + " found)");
    devices.push_back(d);
  }
  return devices;
}

/// Every shard that load() reads still has the size it had when opened.
inline Result<void> check_sizes(const Checkpoint& c, const std::vector<std::size_t>& selected) {
  std::vector<char> checked(c.shards().size(), 0);
  for (std::size_t i : selected) {
    const TensorInfo& t = c.tensors()[i];
    if (checked[t.shard]++) continue;
    const Shard& s = c.shards()[t.shard];
    const std::int64_t now = file_size(c.shard_fd(t.shard));
    if (now < 0) return fail(Errc::io_error, s.path, "", "fstat", hipfile::Error::from_errno(static_cast<int>(-now)));
    if (static_cast<std::uint64_t>(now) != s.size)
      return fail(Errc::shard_changed, s.path, t.name,
                  "the file is now " + std::to_string(now) + " bytes; it was " + std::to_string(s.size) +
                      " when the checkpoint was opened");
  }
  return {};
}

/// A hipfile::File of shard @p i's descriptor (a duplicate: the checkpoint keeps its own).
inline Result<File> register_shard(const Checkpoint& c, std::size_t i) {
  const int fd = ::fcntl(c.shard_fd(i), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return fail(Errc::io_error, c.shards()[i].path, "", "dup", hipfile::Error::last_errno());
  auto f = File::adopt(fd);
  if (!f) {
    hipfile::detail::close_quietly(fd);
    return fail(Errc::io_error, c.shards()[i].path, "", "hipFileHandleRegister", f.error());
  }
  return std::move(*f);
}

/// The name of the first tensor of shard @p shard with bytes in [offset, offset + n).
inline std::string tensor_at(const Checkpoint& c, std::size_t shard, std::uint64_t offset, std::uint64_t n) {
  for (const auto& t : c.tensors())
    if (t.shard == shard && t.bytes() > 0 && t.file_offset < offset + n && offset < t.file_offset + t.bytes()) return t.name;
  return "";
}

/// Runs every group's reads, one thread per group (the caller's thread when there is one
/// group). Stops at the first failure and returns it.
inline Result<void> read_all(const Checkpoint& c, const Plan& plan, const std::vector<File>& files,
                             std::vector<DeviceBuffer>& buffers, const LoadOptions& o) {
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::optional<Error> first;
  std::uint64_t done = 0;
  auto run = [&](std::size_t gi) {
    const Group& g = plan.groups[gi];
    for (const Read& r : g.reads) {
      if (failed.load(std::memory_order_relaxed)) return;
      auto dst = buffers[gi].bytes().subspan(r.alloc_offset, r.bytes);
      auto ok = files[g.shard].read_exact(dst, static_cast<std::int64_t>(r.file_offset));
      std::lock_guard lock(mutex);
      if (!ok) {
        failed = true;
        if (first) return;
        const std::string& path = c.shards()[g.shard].path;
        const std::string name = tensor_at(c, g.shard, r.file_offset, r.bytes);
        const std::string where = std::to_string(r.bytes) + " bytes at offset " + std::to_string(r.file_offset);
        if (ok.error().sys_errno() == ENODATA)
          first = Error(Errc::shard_changed, path, name, "the file ended while reading " + where + " (did it shrink?)");
        else
          first = Error(Errc::io_error, path, name, "reading " + where + " into device " + std::to_string(g.device),
                        ok.error());
        return;
      }
      done += r.bytes;
      if (o.progress) o.progress(done, plan.read_bytes);
    }
  };
  if (plan.groups.size() == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t gi = 0; gi < plan.groups.size(); ++gi) threads.emplace_back(run, gi);
    for (auto& t : threads) t.join();
  }
  if (first) return fail(std::move(*first));
  return {};
}

}  // namespace detail

/**
 * @brief Loads the selected tensors of @p checkpoint into new device memory.
 *
 * Checks first (the selection, the devices, the shards' sizes), then allocates one buffer
 * per (shard, device), then reads: one hipFileRead per shard and device where the tensors are
 * contiguous in the file (a full load), all groups at once on their own threads. On any
 * failure nothing stays allocated. Each tensor's device address is congruent to its offset in
 * the shard's data section modulo 256 (allocations are 256-byte aligned), so tensors that the
 * file aligns to their element size (as safetensors and write() do) are aligned in memory.
 */
[[nodiscard]] inline Result<LoadedCheckpoint> load(const Checkpoint& checkpoint, const LoadOptions& options = {}) {
  using namespace detail;
  auto selected = select(checkpoint, options);
  if (!selected) return fail(selected.error());
  auto devices = place(checkpoint, *selected, options);
  if (!devices) return fail(devices.error());
  if (auto r = check_sizes(checkpoint, *selected); !r) return fail(r.error());
  const std::uint64_t step = options.progress && options.progress_step > 0 ? options.progress_step : UINT64_MAX;
  const Plan plan = make_plan(checkpoint.tensors(), *selected, *devices, step);
  using clock = std::chrono::steady_clock;
  const auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  LoadStats stats;
  stats.bytes_read = plan.read_bytes;
  for (const Group& g : plan.groups) stats.reads += g.reads.size();

  auto t0 = clock::now();
  std::vector<DeviceBuffer> buffers;
  for (const Group& g : plan.groups) {
    auto b = DeviceBuffer::allocate(g.bytes, g.device);
    if (!b)
      return fail(Errc::device_error, checkpoint.shards()[g.shard].path, "",
                  "on device " + std::to_string(g.device), b.error());
    buffers.push_back(std::move(*b));
  }
  stats.allocate_seconds = seconds_since(t0);
  std::vector<File> files(checkpoint.shards().size());
  for (const Group& g : plan.groups) {
    if (files[g.shard] || g.reads.empty()) continue;
    auto f = register_shard(checkpoint, g.shard);
    if (!f) return fail(f.error());
    files[g.shard] = std::move(*f);
  }
  t0 = clock::now();
  if (auto r = read_all(checkpoint, plan, files, buffers, options); !r) return fail(r.error());
  stats.read_seconds = seconds_since(t0);

  LoadedCheckpoint out;
  for (const Placement& p : plan.placed) {
    const TensorInfo& t = checkpoint.tensors()[p.tensor];
    void* data = p.alloc_offset == kNoOffset ? nullptr : static_cast<std::byte*>(buffers[p.group].data()) + p.alloc_offset;
    out.add_tensor(LoadedTensor{t.name, t.dtype, t.shape, plan.groups[p.group].device, data,
                                static_cast<std::size_t>(t.bytes()), p.group});
  }
  out.set_stats(stats);
  for (std::size_t gi = 0; gi < buffers.size(); ++gi) out.add_allocation(std::move(buffers[gi]), plan.groups[gi].shard);
  return out;
}

/// Checkpoint::open(path), then load().
[[nodiscard]] inline Result<LoadedCheckpoint> load(const std::string& path, const LoadOptions& options = {}) {
  auto c = Checkpoint::open(path);
  if (!c) return detail::fail(c.error());
  return load(*c, options);
}

}  // namespace hipfile::safetensors
