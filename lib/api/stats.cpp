// SPDX-License-Identifier: MIT
// Statistics: hipFile 0.5's calls (include/hipfile/hipfile.h) and our own richer ones
// (include/hipfile/hipfile_stats.h). None of these opens the driver.
//
// hipFileGetStatsL1-L3 exist twice (lib/hipfile.map): the 0.5 layouts are the default version
// HIPFILE_0.5, which every new link gets; 0.2's layouts stay as HIPFILE_0 for binaries linked
// against 0.2, which would otherwise have a larger struct written into their buffer.
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <memory>
#include <new>

#include "api/guard.hpp"
#include "api/stats_snapshot.hpp"
#include "api/stats_v05.hpp"
#include "runtime/stats.hpp"
#include "sys/phases.hpp"

static_assert(hipFileStatsPhaseCount == hipfile::sys::kPhases, "one C phase per phase");
static_assert(hipFileStatsPhaseDriverOpen == static_cast<int>(hipfile::sys::Phase::DriverOpen));
static_assert(hipFileStatsPhaseFastpathOpen == static_cast<int>(hipfile::sys::Phase::FastpathOpen));
static_assert(hipFileStatsPhaseEngineStart == static_cast<int>(hipfile::sys::Phase::EngineStart));
static_assert(hipFileStatsPhaseThreadStart == static_cast<int>(hipfile::sys::Phase::ThreadStart));
static_assert(hipFileStatsPhasePinnedStaging == static_cast<int>(hipfile::sys::Phase::PinnedStaging));
static_assert(hipFileStatsPhasePathTrials == static_cast<int>(hipfile::sys::Phase::PathTrials));
static_assert(hipFileStatsPhaseMapping == static_cast<int>(hipfile::sys::Phase::Mapping));
static_assert(hipFileStatsPhaseFileRegistration == static_cast<int>(hipfile::sys::Phase::FileRegistration));
static_assert(hipFileStatsPhaseBufferRegistration == static_cast<int>(hipfile::sys::Phase::BufferRegistration));
static_assert(hipFileStatsPhaseTeardown == static_cast<int>(hipfile::sys::Phase::Teardown));

using hipfile::api::guarded;
namespace stats = hipfile::engine::stats;

namespace {

constexpr hipFileError_t err(hipFileOpError_t e) { return {e, hipSuccess}; }

// Each struct's size in version 1 of the layout, the smallest a caller may pass: version 2
// appended `source` to hipFileStatsL3_t.
template <class T>
constexpr std::size_t version1_size() {
  if constexpr (std::is_same_v<T, hipFileStatsL3_t>) return offsetof(hipFileStatsL3_t, source);
  else return sizeof(T);
}

// The growth convention: the caller says how big its struct is; we fill what we know of it and
// zero the rest.
template <class T, class Pick>
hipFileError_t copy_ours(T* out, std::size_t size, Pick pick) {
  if (out == nullptr || size < version1_size<T>()) return err(hipFileInvalidValue);
  std::unique_ptr<hipFileStatsL3_t> all(new (std::nothrow) hipFileStatsL3_t);
  if (!all) return err(hipFileInternalError);
  hipfile::api::snapshot_l3(*all);
  const T& src = pick(*all);
  const std::size_t known = std::min(size, sizeof(T));
  std::memcpy(out, &src, known);
  std::memset(reinterpret_cast<char*>(out) + known, 0, size - known);
  return err(hipFileSuccess);
}

template <class T, class Pick>
hipFileError_t copy_v05(T* out, Pick pick) {
  if (out == nullptr) return err(hipFileInvalidValue);
  std::unique_ptr<hipFileStatsLevel3_t> all(new (std::nothrow) hipFileStatsLevel3_t);
  if (!all || !hipfile::api::snapshot_v05(*all)) return err(hipFileInternalError);
  *out = pick(*all);
  return err(hipFileSuccess);
}

const hipFileStatsL1_t& ours_l1(const hipFileStatsL3_t& s) { return s.l2.l1; }
const hipFileStatsL2_t& ours_l2(const hipFileStatsL3_t& s) { return s.l2; }
const hipFileStatsL3_t& ours_l3(const hipFileStatsL3_t& s) { return s; }
const hipFileStatsLevel1_t& v05_l1(const hipFileStatsLevel3_t& s) { return s.detailed.basic; }
const hipFileStatsLevel2_t& v05_l2(const hipFileStatsLevel3_t& s) { return s.detailed; }
const hipFileStatsLevel3_t& v05_l3(const hipFileStatsLevel3_t& s) { return s; }

}  // namespace

extern "C" {

// The versioned definitions: declared here only, reached through the names .symver gives them.
HIPFILE_API hipFileError_t hipfile_v05_get_stats_l1(hipFileStatsLevel1_t* out);
HIPFILE_API hipFileError_t hipfile_v05_get_stats_l2(hipFileStatsLevel2_t* out);
HIPFILE_API hipFileError_t hipfile_v05_get_stats_l3(hipFileStatsLevel3_t* out);
HIPFILE_API hipFileError_t hipfile_v0_get_stats_l1(hipFileStatsL1_t* out);
HIPFILE_API hipFileError_t hipfile_v0_get_stats_l2(hipFileStatsL2_t* out);
HIPFILE_API hipFileError_t hipfile_v0_get_stats_l3(hipFileStatsL3_t* out);
__asm__(".symver hipfile_v05_get_stats_l1, hipFileGetStatsL1@@HIPFILE_0.5");
__asm__(".symver hipfile_v05_get_stats_l2, hipFileGetStatsL2@@HIPFILE_0.5");
__asm__(".symver hipfile_v05_get_stats_l3, hipFileGetStatsL3@@HIPFILE_0.5");
__asm__(".symver hipfile_v0_get_stats_l1, hipFileGetStatsL1@HIPFILE_0");
__asm__(".symver hipfile_v0_get_stats_l2, hipFileGetStatsL2@HIPFILE_0");
__asm__(".symver hipfile_v0_get_stats_l3, hipFileGetStatsL3@HIPFILE_0");

HIPFILE_API hipFileError_t hipfile_v05_get_stats_l1(hipFileStatsLevel1_t* out) {
  return guarded([&] { return copy_v05(out, v05_l1); });
}
HIPFILE_API hipFileError_t hipfile_v05_get_stats_l2(hipFileStatsLevel2_t* out) {
  return guarded([&] { return copy_v05(out, v05_l2); });
}
HIPFILE_API hipFileError_t hipfile_v05_get_stats_l3(hipFileStatsLevel3_t* out) {
  return guarded([&] { return copy_v05(out, v05_l3); });
}

HIPFILE_API hipFileError_t hipfile_v0_get_stats_l1(hipFileStatsL1_t* out) {
  return guarded([&] { return copy_ours(out, version1_size<hipFileStatsL1_t>(), ours_l1); });
}
HIPFILE_API hipFileError_t hipfile_v0_get_stats_l2(hipFileStatsL2_t* out) {
  return guarded([&] { return copy_ours(out, version1_size<hipFileStatsL2_t>(), ours_l2); });
}
HIPFILE_API hipFileError_t hipfile_v0_get_stats_l3(hipFileStatsL3_t* out) {
  return guarded([&] { return copy_ours(out, version1_size<hipFileStatsL3_t>(), ours_l3); });
}

HIPFILE_API hipFileError_t hipFileGetStatsExL1(hipFileStatsL1_t* out, size_t size) {
  return guarded([&] { return copy_ours(out, size, ours_l1); });
}
HIPFILE_API hipFileError_t hipFileGetStatsExL2(hipFileStatsL2_t* out, size_t size) {
  return guarded([&] { return copy_ours(out, size, ours_l2); });
}
HIPFILE_API hipFileError_t hipFileGetStatsExL3(hipFileStatsL3_t* out, size_t size) {
  return guarded([&] { return copy_ours(out, size, ours_l3); });
}

HIPFILE_API hipFileError_t hipFileGetStatsPhases(hipFileStatsPhaseTime_t* out, size_t count) {
  if (out == nullptr || count == 0) return err(hipFileInvalidValue);
  hipfile::sys::PhaseTime times[hipfile::sys::kPhases];
  hipfile::sys::phase_times(times);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = i < hipfile::sys::kPhases ? hipFileStatsPhaseTime_t{times[i].count, times[i].time_ns, times[i].first_ns}
                                       : hipFileStatsPhaseTime_t{};
  return err(hipFileSuccess);
}

HIPFILE_API const char* hipFileGetStatsPhaseName(int phase) {
  if (phase < 0 || phase >= static_cast<int>(hipfile::sys::kPhases)) return "unknown";
  return hipfile::sys::phase_name(static_cast<hipfile::sys::Phase>(phase));
}

HIPFILE_API hipFileError_t hipFileStatsReset(void) {
  stats::reset();
  hipfile::sys::reset_phases();
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
