// SPDX-License-Identifier: MIT
// The parameter API's model (cuFile semantics): every parameter (the C API's
// hipFile*ConfigParameter, numbered alike; lib/api/params.cpp converts) maps onto one Config field. Values set through the API while the driver is closed are *staged* here, shown
// by Get while closed, applied over the environment at open, and dropped at the last close.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "io/config.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

enum class SizeParam : int {
  ProfileStats = 0,
  ExecutionMaxIOQueueDepth,
  ExecutionMaxIOThreads,
  ExecutionMinIOThresholdSizeKB,
  ExecutionMaxRequestParallelism,
  PropertiesMaxDirectIOSizeKB,
  PropertiesMaxDeviceCacheSizeKB,
  PropertiesPerBufferCacheSizeKB,
  PropertiesMaxDevicePinnedMemSizeKB,
  PropertiesIOBatchsize,
  PollthresholdSizeKB,
  PropertiesBatchIOTimeoutMs
};

enum class BoolParam : int {
  PropertiesUsePollMode = 0,
  PropertiesAllowCompatMode,
  ForceCompatMode,
  FsMiscApiCheckAggressive,
  ExecutionParallelIO,
  ProfileNvtx,
  PropertiesAllowSystemMemory,
  UsePcip2pdma,
  PreferIOUring,
  ForceOdirectMode,
  SkipTopologyDetection,
  StreamMemopsBypass
};

enum class StringParam : int {
  LoggingLevel = 0,
  EnvLogfilePath,
  LogDir
};

inline constexpr int kSizeParams = static_cast<int>(SizeParam::PropertiesBatchIOTimeoutMs) + 1;
inline constexpr int kBoolParams = static_cast<int>(BoolParam::StreamMemopsBypass) + 1;
inline constexpr int kStringParams = static_cast<int>(StringParam::LogDir) + 1;

/// A parameter's place in Params' arrays.
template <class P>
constexpr std::size_t slot(P p) noexcept {
  return static_cast<std::size_t>(p);
}

/// Validates `value` and stores it into `c`. InvalidValue for an unknown parameter or a value
/// outside the documented range (doc/configuration.md).
Status set_param(Config& c, SizeParam p, std::size_t value);
Status set_param(Config& c, BoolParam p, bool value);
Status set_param(Config& c, StringParam p, const char* value);
Status get_param(const Config& c, SizeParam p, std::size_t& value);
Status get_param(const Config& c, BoolParam p, bool& value);
Status get_param(const Config& c, StringParam p, std::string& value);

/// Values staged through the API while the driver is closed.
struct Params {
  std::optional<std::size_t> sizes[kSizeParams];
  std::optional<bool> bools[kBoolParams];
  std::optional<std::string> strings[kStringParams];

  /// Applies every staged value over `c` (they were validated when staged).
  void apply(Config& c) const;
  void clear();
};

}  // namespace hipfile::engine
