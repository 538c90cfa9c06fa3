// SPDX-License-Identifier: MIT
// The parameter API's model (cuFile semantics): every hipFile*ConfigParameter maps onto one
// Config field. Values set through the API while the driver is closed are *staged* here, shown
// by Get while closed, applied over the environment at open, and dropped at the last close.
#pragma once

#include <hipfile/hipfile.h>

#include <cstddef>
#include <optional>
#include <string>

#include "io/config.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

inline constexpr int kSizeParams = hipFileParamPropertiesBatchIOTimeoutMs + 1;
inline constexpr int kBoolParams = hipFileParamStreamMemopsBypass + 1;
inline constexpr int kStringParams = hipFileParamLogDir + 1;

/// Validates `value` and stores it into `c`. InvalidValue for an unknown parameter or a value
/// outside the documented range (doc/configuration.md).
Status set_param(Config& c, hipFileSizeTConfigParameter_t p, std::size_t value);
Status set_param(Config& c, hipFileBoolConfigParameter_t p, bool value);
Status set_param(Config& c, hipFileStringConfigParameter_t p, const char* value);
Status get_param(const Config& c, hipFileSizeTConfigParameter_t p, std::size_t& value);
Status get_param(const Config& c, hipFileBoolConfigParameter_t p, bool& value);
Status get_param(const Config& c, hipFileStringConfigParameter_t p, std::string& value);

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
