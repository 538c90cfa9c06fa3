// SPDX-License-Identifier: MIT
// fill(): checks every destination against the checkpoint, cuts the reads into jobs in file
// order, and runs them on several threads: contiguous bytes straight into the destination
// through the library, strided slices through pinned staging and a 2-D copy.
#include <hipfile-safetensors/fill.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "fail.hpp"
#include "load_clock.hpp"
#include "select.hpp"
#include "shard_files.hpp"
#include "slice_copy.hpp"
#include "workers.hpp"

namespace hipfile::safetensors {
namespace detail {
namespace {

/// Contiguous reads are cut into pieces of at most this: threads share a large tensor, and
/// progress moves at least this often.
constexpr std::uint64_t kFillPiece = std::uint64_t{64} << 20;

/// One checked destination: its tensor and where the bytes it takes lie.
struct Target {
  const TensorInfo* tensor = nullptr;
  SliceGeometry geometry;
};

/// One job: rows [row, row + rows) of a strided target, or bytes [offset, offset + bytes) of a
/// contiguous one.
struct Job {
  std::size_t destination = 0;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t row = 0;
  std::uint64_t rows = 0;
};

/// The checks of one destination against its tensor: dtype, slice, shape, size.
Result<Target> check_one(const Checkpoint& c, const Destination& d, const TensorInfo& t) {
  const std::string& file = c.shards()[t.shard].path;
  if (d.dtype && *d.dtype != t.dtype)
    return fail(Errc::dtype_mismatch, file, t.name,
                "the destination is " + std::string(dtype_name(*d.dtype)) + "; the tensor is " +
                    std::string(dtype_name(t.dtype)));
  Target out{&t, whole_geometry(t)};
  if (d.slice) {
    auto g = slice_geometry(t, *d.slice);
    if (!g) return fail(Errc::invalid_slice, file, t.name, g.error().what());
    out.geometry = std::move(*g);
  }
  const char* what = d.slice ? "the slice" : "the tensor";
  if (d.shape && *d.shape != out.geometry.shape)
    return fail(Errc::shape_mismatch, file, t.name,
                "the destination's shape is " + shape_text(*d.shape) + "; " + what + " is " +
                    shape_text(out.geometry.shape));
  if (d.bytes != out.geometry.bytes())
    return fail(Errc::shape_mismatch, file, t.name,
                "the destination holds " + std::to_string(d.bytes) + " bytes; " + what + " " +
                    shape_text(out.geometry.shape) + " is " + std::to_string(out.geometry.bytes()) + " bytes");
  if (d.data == nullptr && d.bytes > 0)
    return fail(Errc::invalid_argument, file, t.name, "the destination's address is null");
  return out;
}

/// Every destination checked (a target each; missing ones without a tensor), and the names
/// the options allow to be missing or unexpected.
Result<std::vector<Target>> check_all(const Checkpoint& c, std::span<const Destination> dests, const FillOptions& o,
                                      FillResult& result) {
  std::vector<Target> targets;
  std::vector<char> taken(c.tensors().size(), 0);
  std::map<std::string_view, std::size_t> seen;
  for (const Destination& d : dests) {
    if (!seen.emplace(d.name, targets.size()).second)
      return fail(Errc::invalid_argument, checkpoint_name(c), d.name, "two destinations name this tensor");
    const TensorInfo* t = c.find(d.name);
    if (t == nullptr) {
      if (!o.allow_missing) return fail(Errc::no_such_tensor, checkpoint_name(c), d.name, "is not in the checkpoint");
      result.missing.push_back(d.name);
      targets.emplace_back();
      continue;
    }
    auto target = check_one(c, d, *t);
    if (!target) return fail(target.error());
    taken[static_cast<std::size_t>(t - c.tensors().data())] = 1;
    targets.push_back(std::move(*target));
  }
  for (std::size_t i = 0; i < taken.size(); ++i) {
    if (taken[i]) continue;
    const TensorInfo& t = c.tensors()[i];
    if (!o.allow_unexpected)
      return fail(Errc::unexpected_tensor, c.shards()[t.shard].path, t.name, "no destination takes this tensor");
    result.unexpected.push_back(t.name);
  }
  return targets;
}

/// The jobs of every target, in file order (shard, then offset): contiguous targets in pieces of
/// kFillPiece, strided ones in blocks of rows that fit kStagingBytes (one row at least).
std::vector<Job> make_jobs(const std::vector<Target>& targets) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < targets.size(); ++i)
    if (targets[i].tensor != nullptr && targets[i].geometry.bytes() > 0) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const TensorInfo &x = *targets[a].tensor, &y = *targets[b].tensor;
    return x.shard != y.shard ? x.shard < y.shard : targets[a].geometry.file_offset < targets[b].geometry.file_offset;
  });
  std::vector<Job> jobs;
  for (std::size_t i : order) {
    const SliceGeometry& g = targets[i].geometry;
    if (g.contiguous()) {
      for (std::uint64_t at = 0; at < g.bytes(); at += kFillPiece)
        jobs.push_back(Job{i, at, std::min(kFillPiece, g.bytes() - at), 0, 0});
      continue;
    }
    // Rows whose span fits the staging: (rows - 1) * pitch + width <= kStagingBytes; one row
    // alone where even that does not fit (the staging then grows to that row).
    const std::uint64_t per_block = g.width >= kStagingBytes ? 1 : (kStagingBytes - g.width) / g.pitch + 1;
    for (std::uint64_t row = 0; row < g.rows; row += per_block) {
      const std::uint64_t rows = std::min(per_block, g.rows - row);
      jobs.push_back(Job{i, 0, (rows - 1) * g.pitch + g.width, row, rows});
    }
  }
  return jobs;
}

/// Runs the jobs on parallel_reads threads; stops at the first failure and returns it.
class Filler {
 public:
  Filler(const Checkpoint& c, std::span<const Destination> dests, const std::vector<Target>& targets,
         const std::vector<Job>& jobs, const std::vector<File>& files, const FillOptions& o)
      : c_(c), dests_(dests), targets_(targets), jobs_(jobs), files_(files), o_(o), left_(dests.size()) {
    for (const Job& j : jobs) ++left_[j.destination];
    for (const Job& j : jobs) total_ += j.bytes;
  }

  Result<void> run() {
    for (std::size_t i = 0; i < dests_.size(); ++i)
      if (left_[i] == 0 && targets_[i].tensor != nullptr) filled(i);  // zero bytes: nothing to wait for
    auto work = [this] { work_loop(); };
    run_on_threads(std::min<std::size_t>(jobs_.size(), o_.parallel_reads), work);
    if (first_) return fail(std::move(*first_));
    return {};
  }

  std::uint64_t bytes_read() const { return total_; }

 private:
  void work_loop() {
    SliceCopier copier;  // this thread's staging and stream, made at its first strided job
    for (std::size_t j; !failed_.load(std::memory_order_relaxed) && (j = next_.fetch_add(1)) < jobs_.size();) {
      const Job& job = jobs_[j];
      auto ok = run_job(job, copier);
      std::lock_guard lock(mutex_);
      if (!ok) {
        failed_ = true;
        if (!first_) first_ = ok.error();
        return;
      }
      done_ += job.bytes;
      if (o_.progress) o_.progress(done_, total_);
      if (--left_[job.destination] == 0) filled(job.destination);
    }
  }

  Result<void> run_job(const Job& job, SliceCopier& copier) {
    const Target& t = targets_[job.destination];
    const SliceGeometry& g = t.geometry;
    auto* dst = static_cast<std::byte*>(dests_[job.destination].data);
    const std::string& path = c_.shards()[t.tensor->shard].path;
    if (g.contiguous()) {
      auto r = files_[t.tensor->shard].read_exact(std::span(dst + job.offset, job.bytes),
                                                  static_cast<std::int64_t>(g.file_offset + job.offset));
      if (!r) return fail(read_failure(path, t.tensor->name, job.bytes, g.file_offset + job.offset, r.error()));
      return {};
    }
    return copier.copy(RowBlock{c_.shard_fd(t.tensor->shard), g.file_offset + job.row * g.pitch, job.rows, g.width,
                                g.pitch, dst + job.row * g.width},
                       path, t.tensor->name);
  }

  void filled(std::size_t i) {
    if (o_.on_filled) o_.on_filled(i);
  }

  const Checkpoint& c_;
  std::span<const Destination> dests_;
  const std::vector<Target>& targets_;
  const std::vector<Job>& jobs_;
  const std::vector<File>& files_;
  const FillOptions& o_;
  std::vector<std::size_t> left_;  // jobs not yet done per destination
  std::uint64_t total_ = 0, done_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::optional<Error> first_;
};

}  // namespace
}  // namespace detail

Result<FillResult> fill(const Checkpoint& checkpoint, std::span<const Destination> destinations,
                        const FillOptions& options) {
  using namespace detail;
  LoadClock clock;
  if (options.parallel_reads < 1 || options.parallel_reads > kMaxParallelReads)
    return fail(Errc::invalid_argument, "", "", "parallel_reads " + std::to_string(options.parallel_reads) +
                                                    " is not between 1 and " + std::to_string(kMaxParallelReads));
  FillResult result;
  auto targets = check_all(checkpoint, destinations, options, result);
  if (!targets) return fail(targets.error());
  std::vector<char> used(checkpoint.shards().size(), 0);
  for (const Target& t : *targets)
    if (t.tensor != nullptr && t.geometry.bytes() > 0) used[t.tensor->shard] = 1;
  if (auto r = check_shard_sizes(checkpoint, used); !r) return fail(r.error());
  for (std::size_t i = 0; i < targets->size(); ++i)
    if ((*targets)[i].tensor != nullptr && (*targets)[i].geometry.bytes() > 0)
      result.device_bytes[device_of(destinations[i].data)] += (*targets)[i].geometry.bytes();
  const std::vector<Job> jobs = make_jobs(*targets);
  result.stats.reads = jobs.size();
  result.stats.plan_seconds = clock.lap();
  {
    auto files = register_shards(checkpoint, used, options.direct);
    if (!files) return fail(files.error());
    result.stats.register_seconds = clock.lap();
    Filler filler(checkpoint, destinations, *targets, jobs, *files, options);
    if (auto r = filler.run(); !r) return fail(r.error());
    result.stats.bytes_read = filler.bytes_read();
    result.stats.read_seconds = clock.lap();
  }  // the files are deregistered here
  result.stats.finish_seconds = clock.lap();
  result.stats.total_seconds = clock.total();
  result.stats.library_phases = clock.library_phases();
  result.stats.path_bytes = clock.library_path_bytes();
  return result;
}

}  // namespace hipfile::safetensors
