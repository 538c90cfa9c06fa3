// SPDX-License-Identifier: MIT
#include "runtime/params.hpp"

#include <climits>
#include <string_view>

#include "runtime/batch.hpp"
#include "sys/log.hpp"

namespace hipfile::engine {

namespace {

constexpr std::size_t KiB = 1024;
Status invalid() { return Status::of(Error::InvalidValue); }
bool in(std::size_t v, std::size_t lo, std::size_t hi) { return v >= lo && v <= hi; }

}  // namespace

namespace {

// The profile and execution parameters (set_param).
Status set_execution_param(Config& c, SizeParam p, std::size_t v) {
  switch (p) {
    case SizeParam::ProfileStats:
      if (!in(v, 0, 3)) return invalid();
      c.stats_level = static_cast<unsigned>(v);
      return Status::success();
    case SizeParam::ExecutionMaxIOQueueDepth:
      if (!in(v, 1, 16)) return invalid();
      c.staging_depth = static_cast<unsigned>(v);
      return Status::success();
    case SizeParam::ExecutionMaxIOThreads:
      if (!in(v, 0, 256)) return invalid();
      c.threads = static_cast<unsigned>(v);
      return Status::success();
    case SizeParam::ExecutionMinIOThresholdSizeKB:
      if (!in(v, 0, std::size_t{1} << 30)) return invalid();
      c.inline_threshold = v * KiB;
      return Status::success();
    case SizeParam::ExecutionMaxRequestParallelism:
      if (!in(v, 0, 256)) return invalid();
      c.max_request_parallelism = v;
      return Status::success();
    default: return invalid();
  }
}

// The properties and the poll threshold (set_param).
Status set_property_param(Config& c, SizeParam p, std::size_t v) {
  switch (p) {
    case SizeParam::PropertiesMaxDirectIOSizeKB:
      if (!in(v, 64, 1u << 20)) return invalid();
      c.chunk_size = ((v + 3) & ~std::size_t{3}) * KiB;  // whole 4 KiB pages
      return Status::success();
    case SizeParam::PropertiesMaxDeviceCacheSizeKB:
      if (!in(v, 0, UINT_MAX)) return invalid();
      c.max_device_cache_kb = v;
      return Status::success();
    case SizeParam::PropertiesPerBufferCacheSizeKB:
      if (!in(v, 1, UINT_MAX)) return invalid();
      c.per_buffer_cache_kb = v;
      return Status::success();
    case SizeParam::PropertiesMaxDevicePinnedMemSizeKB:
      if (!in(v, 64, std::size_t{1} << 40)) return invalid();
      c.pinned_limit = v * KiB;
      return Status::success();
    case SizeParam::PropertiesIOBatchsize:
      // hipFileDriverGetProperties reports it as max_batch_io_count: no more than a batch can
      // hold (hipFileBatchIOSetUp refuses more, as upstream does).
      if (!in(v, 1, Batch::kMaxEntries)) return invalid();
      c.io_batch_size = v;
      return Status::success();
    case SizeParam::PollthresholdSizeKB:
      if (!in(v, 0, 1u << 20)) return invalid();
      c.poll_threshold_kb = v;
      return Status::success();
    case SizeParam::PropertiesBatchIOTimeoutMs:
      if (!in(v, 0, UINT_MAX)) return invalid();
      c.batch_timeout_ms = v;
      return Status::success();
    default: return invalid();
  }
}

}  // namespace

Status set_param(Config& c, SizeParam p, std::size_t v) {
  switch (p) {
    case SizeParam::ProfileStats:
    case SizeParam::ExecutionMaxIOQueueDepth:
    case SizeParam::ExecutionMaxIOThreads:
    case SizeParam::ExecutionMinIOThresholdSizeKB:
    case SizeParam::ExecutionMaxRequestParallelism: return set_execution_param(c, p, v);
    default: return set_property_param(c, p, v);
  }
}

Status get_param(const Config& c, SizeParam p, std::size_t& v) {
  switch (p) {
    case SizeParam::ProfileStats: v = c.stats_level; break;
    case SizeParam::ExecutionMaxIOQueueDepth: v = c.staging_depth; break;
    case SizeParam::ExecutionMaxIOThreads: v = c.threads; break;
    case SizeParam::ExecutionMinIOThresholdSizeKB: v = c.inline_threshold / KiB; break;
    case SizeParam::ExecutionMaxRequestParallelism: v = c.max_request_parallelism; break;
    case SizeParam::PropertiesMaxDirectIOSizeKB: v = c.chunk_size / KiB; break;
    case SizeParam::PropertiesMaxDeviceCacheSizeKB: v = c.max_device_cache_kb; break;
    case SizeParam::PropertiesPerBufferCacheSizeKB: v = c.per_buffer_cache_kb; break;
    case SizeParam::PropertiesMaxDevicePinnedMemSizeKB: v = c.pinned_limit / KiB; break;
    case SizeParam::PropertiesIOBatchsize: v = c.io_batch_size; break;
    case SizeParam::PollthresholdSizeKB: v = c.poll_threshold_kb; break;
    case SizeParam::PropertiesBatchIOTimeoutMs: v = c.batch_timeout_ms; break;
    default: return invalid();
  }
  return Status::success();
}

namespace {

bool* bool_field(Config& c, BoolParam p) {
  switch (p) {
    case BoolParam::PropertiesUsePollMode: return &c.use_poll_mode;
    case BoolParam::PropertiesAllowCompatMode: return &c.allow_compat;
    case BoolParam::ForceCompatMode: return &c.force_compat;
    case BoolParam::FsMiscApiCheckAggressive: return &c.api_check_aggressive;
    case BoolParam::ExecutionParallelIO: return &c.parallel_io;
    case BoolParam::ProfileNvtx: return &c.nvtx;
    case BoolParam::PropertiesAllowSystemMemory: return &c.allow_system_memory;
    case BoolParam::UsePcip2pdma: return &c.use_pcip2pdma;
    case BoolParam::PreferIOUring: return &c.prefer_io_uring;
    case BoolParam::ForceOdirectMode: return &c.force_odirect;
    case BoolParam::SkipTopologyDetection: return &c.skip_topology_detection;
    case BoolParam::StreamMemopsBypass: return &c.stream_memops_bypass;
  }
  return nullptr;
}

std::string* string_field(Config& c, StringParam p) {
  switch (p) {
    case StringParam::LoggingLevel: return nullptr;  // stored as a number
    case StringParam::EnvLogfilePath: return &c.log_file;
    case StringParam::LogDir: return &c.log_dir;
  }
  return nullptr;
}

}  // namespace

Status set_param(Config& c, BoolParam p, bool v) {
  bool* f = bool_field(c, p);
  if (!f) return invalid();
  *f = v;
  return Status::success();
}

Status get_param(const Config& c, BoolParam p, bool& v) {
  bool* f = bool_field(const_cast<Config&>(c), p);
  if (!f) return invalid();
  v = *f;
  return Status::success();
}

Status set_param(Config& c, StringParam p, const char* v) {
  if (v == nullptr) return invalid();
  if (p == StringParam::LoggingLevel) {
    log::Level level;
    if (!log::parse(v, level)) return invalid();
    c.log_level = static_cast<int>(level);
    return Status::success();
  }
  std::string* f = string_field(c, p);
  if (!f) return invalid();
  if (std::string_view(v).size() >= PATH_MAX) return invalid();
  *f = v;
  return Status::success();
}

Status get_param(const Config& c, StringParam p, std::string& v) {
  if (p == StringParam::LoggingLevel) {
    v = log::name(static_cast<log::Level>(c.log_level));
    return Status::success();
  }
  std::string* f = string_field(const_cast<Config&>(c), p);
  if (!f) return invalid();
  v = *f;
  return Status::success();
}

void Params::apply(Config& c) const {
  for (int i = 0; i < kSizeParams; ++i)
    if (sizes[i]) (void)set_param(c, static_cast<SizeParam>(i), *sizes[i]);
  for (int i = 0; i < kBoolParams; ++i)
    if (bools[i]) (void)set_param(c, static_cast<BoolParam>(i), *bools[i]);
  for (int i = 0; i < kStringParams; ++i)
    if (strings[i]) (void)set_param(c, static_cast<StringParam>(i), strings[i]->c_str());
}

void Params::clear() {
  for (auto& s : sizes) s.reset();
  for (auto& b : bools) b.reset();
  for (auto& s : strings) s.reset();
}

}  // namespace hipfile::engine
