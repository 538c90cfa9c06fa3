// SPDX-License-Identifier: MIT
#include "api/stats_snapshot.hpp"

#include <cstring>
#include <memory>
#include <new>

namespace hipfile::api {

namespace stats = engine::stats;

// The runtime keeps the C API's slots, numbers and sizes.
static_assert(stats::kVersion == HIPFILE_STATS_VERSION);
static_assert(stats::kPaths == hipFileStatsPathCount && stats::kOps == hipFileStatsOpCount);
static_assert(stats::kBuckets == HIPFILE_STATS_BUCKETS && stats::kMaxDevices == HIPFILE_STATS_MAX_DEVICES);
static_assert(static_cast<int>(stats::Path::Engine) == hipFileStatsPathEngine);
static_assert(static_cast<int>(stats::Path::Host) == hipFileStatsPathHost);
static_assert(static_cast<int>(stats::Path::Cufile) == hipFileStatsPathCufile);
static_assert(static_cast<int>(stats::Path::Amd) == hipFileStatsPathAmd);
static_assert(static_cast<int>(engine::Direction::Read) == hipFileStatsOpRead);
static_assert(static_cast<int>(engine::Direction::Write) == hipFileStatsOpWrite);

namespace {

hipFileStatsCounters_t to_c(const stats::Totals& t) noexcept { return {t.ops, t.bytes, t.errors, t.time_ns}; }

}  // namespace

void to_c(const stats::Snapshot& in, hipFileStatsL3_t& out) noexcept {
  std::memset(&out, 0, sizeof out);
  out.l2.l1.version = in.version;
  out.l2.l1.level = in.level;
  for (int p = 0; p < stats::kPaths; ++p)
    for (int o = 0; o < stats::kOps; ++o) {
      out.l2.l1.path[p][o] = to_c(in.path[p][o]);
      out.source[p][o] = {in.source[p][o].cache_bytes, in.source[p][o].direct_bytes};
      std::memcpy(out.l2.size_hist[p][o], in.size_hist[p][o], sizeof in.size_hist[p][o]);
      std::memcpy(out.l2.latency_hist[p][o], in.latency_hist[p][o], sizeof in.latency_hist[p][o]);
    }
  for (int d = 0; d < stats::kMaxDevices; ++d)
    for (int o = 0; o < stats::kOps; ++o) out.device[d][o] = to_c(in.device[d][o]);
}

void snapshot_l3(hipFileStatsL3_t& out) noexcept {
  std::unique_ptr<stats::Snapshot> ours(new (std::nothrow) stats::Snapshot);  // ~13 KiB: not on the stack
  if (!ours) {
    std::memset(&out, 0, sizeof out);
    return;
  }
  stats::snapshot(*ours);
  to_c(*ours, out);
}

bool snapshot_l3(hipFileStatsL3_t& out, stats::Raw& raw) noexcept {
  std::unique_ptr<stats::Snapshot> ours(new (std::nothrow) stats::Snapshot);
  if (!ours) {
    std::memset(&out, 0, sizeof out);
    return false;
  }
  stats::snapshot(*ours, raw);
  to_c(*ours, out);
  return true;
}

}  // namespace hipfile::api
