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

Status set_param(Config& c, hipFileSizeTConfigParameter_t p, std::size_t v) {
  switch (p) {
    case hipFileParamProfileStats:
      if (!in(v, 0, 3)) return invalid();
      c.stats_level = static_cast<unsigned>(v);
      return Status::success();
    case hipFileParamExecutionMaxIOQueueDepth:
      if (!in(v, 1, 16)) return invalid();
      c.staging_depth = static_cast<unsigned>(v);
      return Status::success();
    case hipFileParamExecutionMaxIOThreads:
      if (!in(v, 0, 256)) return invalid();
      c.threads = static_cast<unsigned>(v);
      return Status::success();
    case hipFileParamExecutionMinIOThresholdSizeKB:
      if (!in(v, 0, std::size_t{1} << 30)) return invalid();
      c.inline_threshold = v * KiB;
      return Status::success();
    case hipFileParamExecutionMaxRequestParallelism:
      if (!in(v, 0, 256)) return invalid();
      c.max_request_parallelism = v;
      return Status::success();
    case hipFileParamPropertiesMaxDirectIOSizeKB:
      if (!in(v, 64, 1u << 20)) return invalid();
      c.chunk_size = ((v + 3) & ~std::size_t{3}) * KiB;  // whole 4 KiB pages
      return Status::success();
    case hipFileParamPropertiesMaxDeviceCacheSizeKB:
      if (!in(v, 0, UINT_MAX)) return invalid();
      c.max_device_cache_kb = v;
      return Status::success();
    case hipFileParamPropertiesPerBufferCacheSizeKB:
      if (!in(v, 1, UINT_MAX)) return invalid();
      c.per_buffer_cache_kb = v;
      return Status::success();
    case hipFileParamPropertiesMaxDevicePinnedMemSizeKB:
      if (!in(v, 64, std::size_t{1} << 40)) return invalid();
      c.pinned_limit = v * KiB;
      return Status::success();
    case hipFileParamPropertiesIOBatchsize:
      // hipFileDriverGetProperties reports it as max_batch_io_count: no more than a batch can
      // hold (hipFileBatchIOSetUp refuses more, as upstream does).
      if (!in(v, 1, Batch::kMaxEntries)) return invalid();
      c.io_batch_size = v;
      return Status::success();
    case hipFileParamPollthresholdSizeKB:
      if (!in(v, 0, 1u << 20)) return invalid();
      c.poll_threshold_kb = v;
      return Status::success();
    case hipFileParamPropertiesBatchIOTimeoutMs:
      if (!in(v, 0, UINT_MAX)) return invalid();
      c.batch_timeout_ms = v;
      return Status::success();
  }
  return invalid();
}

Status get_param(const Config& c, hipFileSizeTConfigParameter_t p, std::size_t& v) {
  switch (p) {
    case hipFileParamProfileStats: v = c.stats_level; break;
    case hipFileParamExecutionMaxIOQueueDepth: v = c.staging_depth; break;
    case hipFileParamExecutionMaxIOThreads: v = c.threads; break;
    case hipFileParamExecutionMinIOThresholdSizeKB: v = c.inline_threshold / KiB; break;
    case hipFileParamExecutionMaxRequestParallelism: v = c.max_request_parallelism; break;
    case hipFileParamPropertiesMaxDirectIOSizeKB: v = c.chunk_size / KiB; break;
    case hipFileParamPropertiesMaxDeviceCacheSizeKB: v = c.max_device_cache_kb; break;
    case hipFileParamPropertiesPerBufferCacheSizeKB: v = c.per_buffer_cache_kb; break;
    case hipFileParamPropertiesMaxDevicePinnedMemSizeKB: v = c.pinned_limit / KiB; break;
    case hipFileParamPropertiesIOBatchsize: v = c.io_batch_size; break;
    case hipFileParamPollthresholdSizeKB: v = c.poll_threshold_kb; break;
    case hipFileParamPropertiesBatchIOTimeoutMs: v = c.batch_timeout_ms; break;
    default: return invalid();
  }
  return Status::success();
}

namespace {

bool* bool_field(Config& c, hipFileBoolConfigParameter_t p) {
  switch (p) {
    case hipFileParamPropertiesUsePollMode: return &c.use_poll_mode;
    case hipFileParamPropertiesAllowCompatMode: return &c.allow_compat;
    case hipFileParamForceCompatMode: return &c.force_compat;
    case hipFileParamFsMiscApiCheckAggressive: return &c.api_check_aggressive;
    case hipFileParamExecutionParallelIO: return &c.parallel_io;
    case hipFileParamProfileNvtx: return &c.nvtx;
    case hipFileParamPropertiesAllowSystemMemory: return &c.allow_system_memory;
    case hipFileParamUsePcip2pdma: return &c.use_pcip2pdma;
    case hipFileParamPreferIOUring: return &c.prefer_io_uring;
    case hipFileParamForceOdirectMode: return &c.force_odirect;
    case hipFileParamSkipTopologyDetection: return &c.skip_topology_detection;
    case hipFileParamStreamMemopsBypass: return &c.stream_memops_bypass;
  }
  return nullptr;
}

std::string* string_field(Config& c, hipFileStringConfigParameter_t p) {
  switch (p) {
    case hipFileParamLoggingLevel: return nullptr;  // stored as a number
    case hipFileParamEnvLogfilePath: return &c.log_file;
    case hipFileParamLogDir: return &c.log_dir;
  }
  return nullptr;
}

}  // namespace

Status set_param(Config& c, hipFileBoolConfigParameter_t p, bool v) {
  bool* f = bool_field(c, p);
  if (!f) return invalid();
  *f = v;
  return Status::success();
}

Status get_param(const Config& c, hipFileBoolConfigParameter_t p, bool& v) {
  bool* f = bool_field(const_cast<Config&>(c), p);
  if (!f) return invalid();
  v = *f;
  return Status::success();
}

Status set_param(Config& c, hipFileStringConfigParameter_t p, const char* v) {
  if (v == nullptr) return invalid();
  if (p == hipFileParamLoggingLevel) {
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

Status get_param(const Config& c, hipFileStringConfigParameter_t p, std::string& v) {
  if (p == hipFileParamLoggingLevel) {
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
    if (sizes[i]) (void)set_param(c, static_cast<hipFileSizeTConfigParameter_t>(i), *sizes[i]);
  for (int i = 0; i < kBoolParams; ++i)
    if (bools[i]) (void)set_param(c, static_cast<hipFileBoolConfigParameter_t>(i), *bools[i]);
  for (int i = 0; i < kStringParams; ++i)
    if (strings[i]) (void)set_param(c, static_cast<hipFileStringConfigParameter_t>(i), strings[i]->c_str());
}

void Params::clear() {
  for (auto& s : sizes) s.reset();
  for (auto& b : bools) b.reset();
  for (auto& s : strings) s.reset();
}

}  // namespace hipfile::engine
