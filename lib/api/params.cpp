// SPDX-License-Identifier: MIT
// Parameters and driver properties with cuFile's semantics (doc/configuration.md): parameters
// are staged while the driver is closed and applied at open; properties and the DriverSet*
// setters work open or closed.
#include <hipfile/hipfile.h>

#include <climits>
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/driver.hpp"
#include "runtime/params.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::Config;
using hipfile::engine::Driver;
using hipfile::engine::BoolParam;
using hipfile::engine::Params;
using hipfile::engine::SizeParam;
using hipfile::engine::StringParam;
using hipfile::engine::slot;
using hipfile::engine::Status;

namespace {

constexpr hipFileError_t err(hipFileOpError_t e) { return {e, hipSuccess}; }

// Setter limits (KiB). Values cuFile keeps in an unsigned above UINT_MAX: DriverInvalidProps.
constexpr std::size_t kMaxDirectIOKiB = std::size_t{1} << 20;  // 1 GiB chunks
constexpr std::size_t kMinDirectIOKiB = 64;
constexpr std::size_t kMaxPollKiB = std::size_t{1} << 20;

template <class P, class V>
hipFileError_t set_limit(P param, V value) {
  return to_error(Driver::get()
      .set_limit([&](Config& c) { return hipfile::engine::set_param(c, param, value); },
                 [&](Params& p) {
                   Config scratch;
                   if (Status st = hipfile::engine::set_param(scratch, param, value); !st.ok()) return st;
                   if constexpr (std::is_same_v<V, bool>)
                     p.bools[slot(param)] = value;
                   else
                     p.sizes[slot(param)] = value;
                   return Status::success();
                 }));
}

// The runtime's parameters are numbered as the C API's.
static_assert(static_cast<int>(SizeParam::ProfileStats) == hipFileParamProfileStats);
static_assert(static_cast<int>(SizeParam::ExecutionMaxIOQueueDepth) == hipFileParamExecutionMaxIOQueueDepth);
static_assert(static_cast<int>(SizeParam::ExecutionMaxIOThreads) == hipFileParamExecutionMaxIOThreads);
static_assert(static_cast<int>(SizeParam::ExecutionMinIOThresholdSizeKB) == hipFileParamExecutionMinIOThresholdSizeKB);
static_assert(static_cast<int>(SizeParam::ExecutionMaxRequestParallelism) == hipFileParamExecutionMaxRequestParallelism);
static_assert(static_cast<int>(SizeParam::PropertiesMaxDirectIOSizeKB) == hipFileParamPropertiesMaxDirectIOSizeKB);
static_assert(static_cast<int>(SizeParam::PropertiesMaxDeviceCacheSizeKB) == hipFileParamPropertiesMaxDeviceCacheSizeKB);
static_assert(static_cast<int>(SizeParam::PropertiesPerBufferCacheSizeKB) == hipFileParamPropertiesPerBufferCacheSizeKB);
static_assert(static_cast<int>(SizeParam::PropertiesMaxDevicePinnedMemSizeKB) == hipFileParamPropertiesMaxDevicePinnedMemSizeKB);
static_assert(static_cast<int>(SizeParam::PropertiesIOBatchsize) == hipFileParamPropertiesIOBatchsize);
static_assert(static_cast<int>(SizeParam::PollthresholdSizeKB) == hipFileParamPollthresholdSizeKB);
static_assert(static_cast<int>(SizeParam::PropertiesBatchIOTimeoutMs) == hipFileParamPropertiesBatchIOTimeoutMs);
static_assert(hipfile::engine::kSizeParams == hipFileParamPropertiesBatchIOTimeoutMs + 1);
static_assert(static_cast<int>(BoolParam::PropertiesUsePollMode) == hipFileParamPropertiesUsePollMode);
static_assert(static_cast<int>(BoolParam::PropertiesAllowCompatMode) == hipFileParamPropertiesAllowCompatMode);
static_assert(static_cast<int>(BoolParam::ForceCompatMode) == hipFileParamForceCompatMode);
static_assert(static_cast<int>(BoolParam::FsMiscApiCheckAggressive) == hipFileParamFsMiscApiCheckAggressive);
static_assert(static_cast<int>(BoolParam::ExecutionParallelIO) == hipFileParamExecutionParallelIO);
static_assert(static_cast<int>(BoolParam::ProfileNvtx) == hipFileParamProfileNvtx);
static_assert(static_cast<int>(BoolParam::PropertiesAllowSystemMemory) == hipFileParamPropertiesAllowSystemMemory);
static_assert(static_cast<int>(BoolParam::UsePcip2pdma) == hipFileParamUsePcip2pdma);
static_assert(static_cast<int>(BoolParam::PreferIOUring) == hipFileParamPreferIOUring);
static_assert(static_cast<int>(BoolParam::ForceOdirectMode) == hipFileParamForceOdirectMode);
static_assert(static_cast<int>(BoolParam::SkipTopologyDetection) == hipFileParamSkipTopologyDetection);
static_assert(static_cast<int>(BoolParam::StreamMemopsBypass) == hipFileParamStreamMemopsBypass);
static_assert(hipfile::engine::kBoolParams == hipFileParamStreamMemopsBypass + 1);
static_assert(static_cast<int>(StringParam::LoggingLevel) == hipFileParamLoggingLevel);
static_assert(static_cast<int>(StringParam::EnvLogfilePath) == hipFileParamEnvLogfilePath);
static_assert(static_cast<int>(StringParam::LogDir) == hipFileParamLogDir);
static_assert(hipfile::engine::kStringParams == hipFileParamLogDir + 1);

// An enum parameter from C as the runtime's parameter of the same number, or false (any other
// int).
template <class R, class E>
bool valid_param(const E& raw, int count, R& out) noexcept {
  const int v = hipfile::api::enum_value(raw);
  if (v < 0 || v >= count) return false;
  out = static_cast<R>(v);
  return true;
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t* props) {
  return guarded([&]() -> hipFileError_t {
    if (props == nullptr) return err(hipFileInvalidValue);
    const Config c = Driver::get().properties_config();  // what requests use
    hipFileDriverProps_t p{};
    p.nvfs.major_version = HIPFILE_VERSION_MAJOR;
    p.nvfs.minor_version = HIPFILE_VERSION_MINOR;
    p.nvfs.poll_thresh_size = c.poll_threshold_kb;
    p.nvfs.max_direct_io_size = c.chunk_size / 1024;
    p.nvfs.driver_status_flags = 0;  // no kernel-assisted file system support is claimed
    p.nvfs.driver_control_flags = (c.use_poll_mode ? 1u << hipFileUsePollMode : 0u) |
                                  (c.allow_compat ? 1u << hipFileAllowCompatMode : 0u);
    p.feature_flags = (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) |
                      (c.parallel_io ? 1u << hipFileParallelIOSupported : 0u);
    p.max_device_cache_size = c.max_device_cache_kb;
    p.per_buffer_cache_size = c.per_buffer_cache_kb;
    p.max_device_pinned_mem_size = c.pinned_limit / 1024;
    p.max_batch_io_count = static_cast<unsigned>(c.io_batch_size);
    p.max_batch_io_timeout_msecs = static_cast<unsigned>(c.batch_timeout_ms);
    *props = p;
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t threshold_kb) {
  return guarded([&]() -> hipFileError_t {
    if (threshold_kb > UINT_MAX) return err(hipFileDriverInvalidProps);
    if (threshold_kb > kMaxPollKiB || (poll && threshold_kb == 0)) return err(hipFileDriverUnsupportedLimit);
    hipFileError_t e = set_limit(SizeParam::PollthresholdSizeKB, threshold_kb);
    if (e.err != hipFileSuccess) return e;
    return set_limit(BoolParam::PropertiesUsePollMode, poll);
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t kb) {
  return guarded([&]() -> hipFileError_t {
    if (kb > UINT_MAX) return err(hipFileDriverInvalidProps);
    if (kb < kMinDirectIOKiB || kb > kMaxDirectIOKiB) return err(hipFileDriverUnsupportedLimit);
    return set_limit(SizeParam::PropertiesMaxDirectIOSizeKB, kb);
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t kb) {
  return guarded([&]() -> hipFileError_t {
    if (kb > UINT_MAX) return err(hipFileDriverInvalidProps);
    if (kb == 0) return err(hipFileDriverUnsupportedLimit);
    return set_limit(SizeParam::PropertiesMaxDeviceCacheSizeKB, kb);
  });
}

HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t kb) {
  return guarded([&]() -> hipFileError_t {
    if (kb > UINT_MAX) return err(hipFileDriverInvalidProps);
    if (kb < 64) return err(hipFileDriverUnsupportedLimit);
    return set_limit(SizeParam::PropertiesMaxDevicePinnedMemSizeKB, kb);
  });
}

HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t raw, size_t* value) {
  return guarded([&]() -> hipFileError_t {
    SizeParam param;
    if (!valid_param(raw, hipfile::engine::kSizeParams, param)) return err(hipFileInvalidValue);
    if (value == nullptr) return err(hipFileInvalidValue);
    std::size_t v = 0;
    if (Status st = get_param(Driver::get().effective_config(), param, v); !st.ok()) return to_error(st);
    *value = v;
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t raw, bool* value) {
  return guarded([&]() -> hipFileError_t {
    BoolParam param;
    if (!valid_param(raw, hipfile::engine::kBoolParams, param)) return err(hipFileInvalidValue);
    if (value == nullptr) return err(hipFileInvalidValue);
    bool v = false;
    if (Status st = get_param(Driver::get().effective_config(), param, v); !st.ok()) return to_error(st);
    *value = v;
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t raw, char* desc_str, int len) {
  return guarded([&]() -> hipFileError_t {
    StringParam param;
    if (!valid_param(raw, hipfile::engine::kStringParams, param)) return err(hipFileInvalidValue);
    if (desc_str == nullptr || len <= 0) return err(hipFileInvalidValue);
    std::string v;
    if (Status st = get_param(Driver::get().effective_config(), param, v); !st.ok()) return to_error(st);
    if (v.size() + 1 > static_cast<std::size_t>(len)) return err(hipFileInvalidValue);
    std::memcpy(desc_str, v.c_str(), v.size() + 1);
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t raw, size_t value) {
  return guarded([&]() -> hipFileError_t {
    SizeParam param;
    if (!valid_param(raw, hipfile::engine::kSizeParams, param)) return err(hipFileInvalidValue);
    return to_error(Driver::get()
        .stage([&](Params& p) {
          Config scratch;
          if (Status st = set_param(scratch, param, value); !st.ok()) return st;
          p.sizes[slot(param)] = value;
          return Status::success();
        }));
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t raw, bool value) {
  return guarded([&]() -> hipFileError_t {
    BoolParam param;
    if (!valid_param(raw, hipfile::engine::kBoolParams, param)) return err(hipFileInvalidValue);
    return to_error(Driver::get()
        .stage([&](Params& p) {
          Config scratch;
          if (Status st = set_param(scratch, param, value); !st.ok()) return st;
          p.bools[slot(param)] = value;
          return Status::success();
        }));
  });
}

HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t raw, const char* desc_str) {
  return guarded([&]() -> hipFileError_t {
    StringParam param;
    if (!valid_param(raw, hipfile::engine::kStringParams, param)) return err(hipFileInvalidValue);
    return to_error(Driver::get()
        .stage([&](Params& p) {
          Config scratch;
          if (Status st = set_param(scratch, param, desc_str); !st.ok()) return st;
          p.strings[slot(param)] = std::string(desc_str);
          return Status::success();
        }));
  });
}

}  // extern "C"
