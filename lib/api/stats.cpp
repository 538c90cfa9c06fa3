// SPDX-License-Identifier: MIT
// Statistics (include/hipfile/hipfile_stats.h). None of these opens the driver.
#include <hipfile/hipfile_stats.h>

#include <cstring>
#include <memory>

#include "api/guard.hpp"
#include "engine/stats.hpp"

using hipfile::api::guarded;
namespace stats = hipfile::engine::stats;

namespace {
constexpr hipFileError_t err(hipFileOpError_t e) { return {e, hipSuccess}; }
}

extern "C" {

HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsL1_t* out) {
  return guarded([&] {
    if (out == nullptr) return err(hipFileInvalidValue);
    auto all = std::make_unique<hipFileStatsL3_t>();
    stats::snapshot(*all);
    *out = all->l2.l1;
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsL2_t* out) {
  return guarded([&] {
    if (out == nullptr) return err(hipFileInvalidValue);
    auto all = std::make_unique<hipFileStatsL3_t>();
    stats::snapshot(*all);
    *out = all->l2;
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsL3_t* out) {
  return guarded([&] {
    if (out == nullptr) return err(hipFileInvalidValue);
    stats::snapshot(*out);
    return err(hipFileSuccess);
  });
}

HIPFILE_API hipFileError_t hipFileStatsReset(void) {
  stats::reset();
  return err(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileGetStatsLevel(int* level) {
  if (level == nullptr) return err(hipFileInvalidValue);
  *level = static_cast<int>(stats::level());
  return err(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileSetStatsLevel(int level) {
  if (level < 0 || level > 3) return err(hipFileInvalidValue);
  stats::set_level(static_cast<unsigned>(level));
  return err(hipFileSuccess);
}

HIPFILE_API hipFileError_t hipFileStatsWrite(const char* path) {
  return guarded([&] {
    return err(stats::write_report(path ? path : "") ? hipFileSuccess : hipFileInvalidValue);
  });
}

}  // extern "C"
