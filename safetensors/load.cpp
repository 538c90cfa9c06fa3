// SPDX-License-Identifier: MIT
// load(): checks the options, selection, devices and shard sizes, allocates one buffer per
// (shard, device), and runs the plan's reads on several threads.
#include <hipfile-safetensors/load.hpp>

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>

#include <hipfile++/device_buffer.hpp>
#include <hipfile++/file.hpp>

#include "devices.hpp"
#include "fail.hpp"
#include "load_clock.hpp"
#include "plan.hpp"
#include "select.hpp"
#include "shard_files.hpp"
#include "workers.hpp"

namespace hipfile::safetensors {
namespace detail {
namespace {

/// The device of each selected tensor, each checked against the devices the runtime has.
Result<std::vector<int>> place(const Checkpoint& c, const std::vector<std::size_t>& selected, const LoadOptions& o) {
  auto runtime = runtime_devices();
  if (!runtime) return fail(runtime.error());
  std::vector<int> devices;
  for (std::size_t i : selected) {
    const TensorInfo& t = c.tensors()[i];
    // Only -1 means the current device: another negative one is refused, not taken as it.
    const int asked = o.placement ? o.placement(t) : (o.device == -1 ? runtime->current : o.device);
    auto d = checked_device(*runtime, asked, c.shards()[t.shard].path, t.name);
    if (!d) return fail(d.error());
    devices.push_back(*d);
  }
  return devices;
}

/// The name of the first tensor of shard @p shard with bytes in [offset, offset + n).
std::string tensor_at(const Checkpoint& c, std::size_t shard, std::uint64_t offset, std::uint64_t n) {
  for (const auto& t : c.tensors())
    if (t.shard == shard && t.bytes() > 0 && t.file_offset < offset + n && offset < t.file_offset + t.bytes()) return t.name;
  return "";
}

/// The error of a failed read: the file, the tensor at the read's start, where, and why.
Error read_error(const Checkpoint& c, const Group& g, const Read& r, const hipfile::Error& cause) {
  return read_failure(c.shards()[g.shard].path, tensor_at(c, g.shard, r.file_offset, r.bytes), r.bytes, r.file_offset,
                      cause, " into device " + std::to_string(g.device));
}

/// Runs every read: one thread per group and parallel_reads (at most kMaxThreads; fewer when
/// the system refuses more), taking reads in turn from all groups (all shards and devices
/// start at once); the caller's thread alone when there is one read at a time to do. Stops
/// at the first failure and returns it.
Result<void> read_all(const Checkpoint& c, const Plan& plan, const std::vector<File>& files,
                             std::vector<DeviceBuffer>& buffers, const LoadOptions& o) {
  struct Job {
    std::size_t group;
    const Read* read;
  };
  std::vector<Job> jobs;  // round-robin over the groups
  for (std::size_t k = 0, more = 1; more; ++k) {
    more = 0;
    for (std::size_t gi = 0; gi < plan.groups.size(); ++gi)
      if (k < plan.groups[gi].reads.size()) jobs.push_back({gi, &plan.groups[gi].reads[k]}), more = 1;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  std::optional<Error> first;
  std::uint64_t done = 0;
  auto run = [&] {
    for (std::size_t j; !failed.load(std::memory_order_relaxed) && (j = next.fetch_add(1)) < jobs.size();) {
      const Group& g = plan.groups[jobs[j].group];
      const Read& r = *jobs[j].read;
      auto dst = buffers[jobs[j].group].bytes().subspan(r.alloc_offset, r.bytes);
      auto ok = files[g.shard].read_exact(dst, static_cast<std::int64_t>(r.file_offset));
      std::lock_guard lock(mutex);
      if (!ok) {
        failed = true;
        if (!first) first = read_error(c, g, r, ok.error());
        return;
      }
      done += r.bytes;
      if (o.progress) o.progress(done, plan.read_bytes);
    }
  };
  run_on_threads(std::min(jobs.size(), plan.groups.size() * std::max(o.parallel_reads, 1u)), run);
  if (first) return fail(std::move(*first));
  return {};
}

/// One device buffer per group of the plan.
Result<std::vector<DeviceBuffer>> allocate(const Checkpoint& c, const Plan& plan) {
  std::vector<DeviceBuffer> buffers;
  for (const Group& g : plan.groups) {
    auto b = DeviceBuffer::allocate(g.bytes, g.device);
    if (!b) return fail(Errc::device_error, c.shards()[g.shard].path, "", "on device " + std::to_string(g.device), b.error());
    buffers.push_back(std::move(*b));
  }
  return buffers;
}

/// The loaded checkpoint: a view per placed tensor, then the buffers handed over.
LoadedCheckpoint assemble(const Checkpoint& c, const Plan& plan, std::vector<DeviceBuffer>& buffers) {
  LoadedCheckpoint out;
  for (const Placement& p : plan.placed) {
    const TensorInfo& t = c.tensors()[p.tensor];
    void* data = p.alloc_offset == kNoOffset ? nullptr : static_cast<std::byte*>(buffers[p.group].data()) + p.alloc_offset;
    out.add_tensor(LoadedTensor{t.name, t.dtype, t.shape, plan.groups[p.group].device, data,
                                static_cast<std::size_t>(t.bytes()), p.group});
  }
  for (std::size_t gi = 0; gi < buffers.size(); ++gi) out.add_allocation(std::move(buffers[gi]), plan.groups[gi].shard);
  return out;
}

/// The plan of a load whose options and selection were checked.
Result<Plan> checked_plan(const Checkpoint& c, const LoadOptions& o) {
  if (o.parallel_reads > kMaxParallelReads)
    return fail(Errc::invalid_argument, "", "", "parallel_reads " + std::to_string(o.parallel_reads) +
                                                    " is above the maximum of " + std::to_string(kMaxParallelReads));
  auto selected = select_tensors(c, o.names, o.filter);
  if (!selected) return fail(selected.error());
  auto devices = place(c, *selected, o);
  if (!devices) return fail(devices.error());
  std::vector<char> used(c.shards().size(), 0);
  for (std::size_t i : *selected) used[c.tensors()[i].shard] = 1;
  if (auto r = check_shard_sizes(c, used); !r) return fail(r.error());
  const std::uint64_t step = o.progress && o.progress_step > 0 ? o.progress_step : UINT64_MAX;
  return make_plan(c.tensors(), *selected, *devices, step, o.parallel_reads);
}

}  // namespace
}  // namespace detail

Result<LoadedCheckpoint> load(const Checkpoint& checkpoint, const LoadOptions& options) {
  using namespace detail;
  LoadClock clock;
  auto plan = checked_plan(checkpoint, options);
  if (!plan) return fail(plan.error());
  LoadStats stats;
  stats.bytes_read = plan->read_bytes;
  for (const Group& g : plan->groups) stats.reads += g.reads.size();
  stats.plan_seconds = clock.lap();

  auto buffers = allocate(checkpoint, *plan);
  if (!buffers) return fail(buffers.error());
  stats.allocate_seconds = clock.lap();
  {
    std::vector<char> used(checkpoint.shards().size(), 0);
    for (const Group& g : plan->groups) used[g.shard] |= !g.reads.empty();
    auto files = register_shards(checkpoint, used, options.direct);
    if (!files) return fail(files.error());
    stats.register_seconds = clock.lap();
    if (auto r = read_all(checkpoint, *plan, *files, *buffers, options); !r) return fail(r.error());
    stats.read_seconds = clock.lap();
  }  // the files are deregistered here
  LoadedCheckpoint out = assemble(checkpoint, *plan, *buffers);
  stats.finish_seconds = clock.lap();
  stats.total_seconds = clock.total();
  stats.library_phases = clock.library_phases();
  stats.path_bytes = clock.library_path_bytes();
  out.set_stats(stats);
  return out;
}

Result<LoadedCheckpoint> load(const std::string& path, const LoadOptions& options) {
  auto c = Checkpoint::open(path);
  if (!c) return detail::fail(c.error());
  return load(*c, options);
}

}  // namespace hipfile::safetensors
