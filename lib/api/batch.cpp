// SPDX-License-Identifier: MIT
// Batch I/O: see engine/batch.hpp.
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "engine/batch.hpp"

using hipfile::api::guarded;
using hipfile::engine::batch_find;

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* batch_idp, unsigned max_nr) {
  return guarded([&] { return hipfile::engine::batch_setup(batch_idp, max_nr); });
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t* iocbp, unsigned /*flags: reserved*/) {
  return guarded([&]() -> hipFileError_t {
    auto batch = batch_find(batch_idp);
    if (!batch) return {hipFileInvalidValue, hipSuccess};
    return batch->submit(nr, iocbp);
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned* nr,
                                                   hipFileIOEvents_t* iocbp, struct timespec* timeout) {
  return guarded([&]() -> hipFileError_t {
    auto batch = batch_find(batch_idp);
    if (!batch) return {hipFileInvalidValue, hipSuccess};
    return batch->get_status(min_nr, nr, iocbp, timeout);
  });
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp) {
  return guarded([&]() -> hipFileError_t {
    auto batch = batch_find(batch_idp);
    if (!batch) return {hipFileInvalidValue, hipSuccess};
    batch->cancel();
    return {hipFileSuccess, hipSuccess};
  });
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp) {
  try {
    hipfile::engine::batch_destroy(batch_idp);
  } catch (...) {
  }
}

}  // extern "C"
