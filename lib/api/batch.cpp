// SPDX-License-Identifier: MIT
// Batch I/O: see runtime/batch.hpp. The argument checks of hipFile 0.5 live here (nr = 0 is
// hipFileInvalidValue for Submit and GetStatus); every call is counted for hipFileGetStatsL1.
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/batch.hpp"
#include "runtime/stats.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::batch_find;
namespace stats = hipfile::engine::stats;

namespace {

constexpr hipFileError_t kInvalid{hipFileInvalidValue, hipSuccess};

bool succeeded(hipFileError_t e) { return e.err == hipFileSuccess; }

// GetStatus reports each finished operation once: count them as complete (ok) or failed (err).
void count_completions(const hipFileIOEvents_t* events, unsigned n) {
  std::uint64_t done = 0, failed = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (events[i].status == hipFileComplete) ++done;
    if (events[i].status == hipFileFailed) ++failed;
  }
  if (done) stats::count(stats::Call::BatchComplete, true, done);
  if (failed) stats::count(stats::Call::BatchComplete, false, failed);
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* batch_idp, unsigned max_nr) {
  hipFileError_t e = guarded([&] { return to_error(hipfile::engine::batch_setup(batch_idp, max_nr)); });
  stats::count(stats::Call::BatchSetup, succeeded(e));
  return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t* iocbp, unsigned /*flags: reserved*/) {
  hipFileError_t e = guarded([&]() -> hipFileError_t {
    if (nr == 0 || iocbp == nullptr) return kInvalid;
    auto batch = batch_find(batch_idp);
    if (!batch) return kInvalid;
    return to_error(batch->submit(nr, iocbp));
  });
  stats::count(stats::Call::BatchSubmit, succeeded(e));
  if (nr != 0) stats::count(stats::Call::BatchEnqueued, succeeded(e), nr);
  return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned* nr,
                                                   hipFileIOEvents_t* iocbp, struct timespec* timeout) {
  return guarded([&]() -> hipFileError_t {
    if (nr == nullptr || *nr == 0 || iocbp == nullptr) return kInvalid;
    auto batch = batch_find(batch_idp);
    if (!batch) return kInvalid;
    hipFileError_t e = to_error(batch->get_status(min_nr, nr, iocbp, timeout));
    if (succeeded(e)) count_completions(iocbp, *nr);
    return e;
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp) {
  hipFileError_t e = guarded([&]() -> hipFileError_t {
    auto batch = batch_find(batch_idp);
    if (!batch) return kInvalid;
    batch->cancel();
    return {hipFileSuccess, hipSuccess};
  });
  stats::count(stats::Call::BatchCancel, succeeded(e));
  return e;
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp) {
  bool known = false;
  try {
    known = batch_find(batch_idp) != nullptr;
    hipfile::engine::batch_destroy(batch_idp);
  } catch (...) {
  }
  stats::count(stats::Call::BatchDestroy, known);
}

}  // extern "C"
