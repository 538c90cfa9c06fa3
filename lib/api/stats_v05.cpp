// SPDX-License-Identifier: MIT
// hipFile 0.5's statistics (hipFileStatsLevel1/2/3_t in include/hipfile/hipfile.h), derived from
// one snapshot of our own counters; doc/statistics.md lists each field and its source.
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <memory>
#include <new>

#include "api/stats_snapshot.hpp"
#include "api/stats_v05.hpp"
#include "gpu/hip.hpp"
#include "runtime/stats.hpp"

namespace hipfile::api {

using engine::stats::Call;
using engine::stats::Raw;

namespace {

constexpr int P = hipFileStatsPathCount, O = hipFileStatsOpCount, D = HIPFILE_STATS_MAX_DEVICES;
static_assert(D == HIPFILE_MAX_GPUS, "one per-GPU slot per device slot of our own");

// Per second of I/O time, as upstream derives bandwidth (bytes over the summed latencies).
std::uint64_t per_second(std::uint64_t count, std::uint64_t time_ns) noexcept {
  if (time_ns == 0) return 0;
  return static_cast<std::uint64_t>(static_cast<long double>(count) * 1e9L / static_cast<long double>(time_ns));
}

hipFileOpCounter_t counter(const std::uint64_t (&c)[2]) noexcept { return {c[0], c[1]}; }

bool fastpath(int path) noexcept { return path == hipFileStatsPathCufile || path == hipFileStatsPathAmd; }

struct OpTotals {
  std::uint64_t ops = 0, errors = 0, bytes = 0, time_ns = 0;
  template <class Counters>  // hipFileStatsCounters_t or the runtime's Totals: the same fields
  void add(const Counters& c) noexcept {
    ops += c.ops;
    errors += c.errors;
    bytes += c.bytes;
    time_ns += c.time_ns;
  }
};

void fill_io(hipFileStatsLevel1_t& out, const hipFileStatsL1_t& ours) noexcept {
  OpTotals t[O];
  for (int p = 0; p < P; ++p)
    for (int o = 0; o < O; ++o) t[o].add(ours.path[p][o]);
  const OpTotals& r = t[hipFileStatsOpRead];
  const OpTotals& w = t[hipFileStatsOpWrite];
  out.read_ops = {r.ops - r.errors, r.errors};
  out.write_ops = {w.ops - w.errors, w.errors};
  out.read_bytes = r.bytes;
  out.write_bytes = w.bytes;
  out.read_lat_sum_us = r.time_ns / 1000;
  out.write_lat_sum_us = w.time_ns / 1000;
  out.read_lat_avg_us = r.ops ? r.time_ns / 1000 / r.ops : 0;
  out.write_lat_avg_us = w.ops ? w.time_ns / 1000 / w.ops : 0;
  out.read_bw_bytes_per_sec = per_second(r.bytes, r.time_ns);
  out.write_bw_bytes_per_sec = per_second(w.bytes, w.time_ns);
  out.read_ops_per_sec = per_second(r.ops, r.time_ns);
  out.write_ops_per_sec = per_second(w.ops, w.time_ns);
}

void fill_calls(hipFileStatsLevel1_t& out, const Raw& raw) noexcept {
  auto at = [&](Call c) -> const std::uint64_t(&)[2] { return raw.calls[static_cast<int>(c)]; };
  out.hdl_register_ops = counter(at(Call::HandleRegister));
  out.hdl_deregister_ops = counter(at(Call::HandleDeregister));
  out.buf_register_ops = counter(at(Call::BufRegister));
  out.buf_deregister_ops = counter(at(Call::BufDeregister));
  out.batch_setup_ops = counter(at(Call::BatchSetup));
  out.batch_submit_ops = counter(at(Call::BatchSubmit));
  out.batch_cancel_ops = counter(at(Call::BatchCancel));
  out.batch_destroy_ops = counter(at(Call::BatchDestroy));
  out.batch_enqueued_ops = counter(at(Call::BatchEnqueued));
  out.batch_total_submit_ops = counter(at(Call::BatchEnqueued));
  out.batch_complete_ops = counter(at(Call::BatchComplete));
  out.batch_processed_ops = counter(at(Call::BatchComplete));
}

// Our histograms count bytes in powers of two; 0.5's count KiB: KiB bucket i is byte bucket i + 10.
void fill_sizes(hipFileStatsLevel2_t& out, const hipFileStatsL2_t& ours) noexcept {
  constexpr int kKiB = 10, kLast = 31;
  for (int p = 0; p < P; ++p)
    for (int b = 0; b < HIPFILE_STATS_BUCKETS; ++b) {
      int k = b < kKiB ? 0 : b - kKiB;
      if (k > kLast) k = kLast;
      out.read_size_kb_hist[k] += ours.size_hist[p][hipFileStatsOpRead][b];
      out.write_size_kb_hist[k] += ours.size_hist[p][hipFileStatsOpWrite][b];
    }
}

void fill_gpu(hipFilePerGpuStats_t& g, const engine::stats::Totals (&dev)[P][O]) noexcept {
  OpTotals r, w;
  for (int p = 0; p < P; ++p) {
    const engine::stats::Totals& cr = dev[p][hipFileStatsOpRead];
    const engine::stats::Totals& cw = dev[p][hipFileStatsOpWrite];
    r.add(cr);
    w.add(cw);
    (fastpath(p) ? g.n_nvfs_reads : g.n_posix_reads) += cr.ops;
    (fastpath(p) ? g.n_nvfs_writes : g.n_posix_writes) += cw.ops;
  }
  g.read_bytes = r.bytes;
  g.read_duration_us = r.time_ns / 1000;
  g.read_bw_bytes_per_sec = per_second(r.bytes, r.time_ns);
  g.n_total_reads = r.ops;
  g.n_reads_err = r.errors;
  g.writes_bytes = w.bytes;
  g.write_duration_us = w.time_ns / 1000;
  g.write_bw_bytes_per_sec = per_second(w.bytes, w.time_ns);
  g.n_total_writes = w.ops;
  g.n_writes_err = w.errors;
}

std::uint32_t gpu_count() noexcept {
  int n = 0;
  if (gpu::device_count(n) != hipSuccess || n < 0) return 0;
  return static_cast<std::uint32_t>(n < HIPFILE_MAX_GPUS ? n : HIPFILE_MAX_GPUS);
}

}  // namespace

bool snapshot_v05(hipFileStatsLevel3_t& out) noexcept {
  std::memset(&out, 0, sizeof out);
  std::unique_ptr<hipFileStatsL3_t> ours(new (std::nothrow) hipFileStatsL3_t);
  std::unique_ptr<Raw> raw(new (std::nothrow) Raw);
  if (!ours || !raw) return false;
  if (!snapshot_l3(*ours, *raw)) return false;
  fill_io(out.detailed.basic, ours->l2.l1);
  fill_calls(out.detailed.basic, *raw);
  fill_sizes(out.detailed, ours->l2);
  out.num_gpus = gpu_count();
  for (int d = 0; d < D; ++d) fill_gpu(out.per_gpu_stats[d], raw->device[d]);
  return true;
}

}  // namespace hipfile::api
