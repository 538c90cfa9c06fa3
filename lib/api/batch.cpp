// SPDX-License-Identifier: MIT
// Batch I/O. Not implemented yet (issue 5): every entry point links and reports
// hipFileInternalError.
#include <hipfile/hipfile.h>

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t*, unsigned) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t, unsigned, hipFileIOParams_t*, unsigned) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t, unsigned, unsigned*, hipFileIOEvents_t*,
                                                   struct timespec*) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t) {}

}  // extern "C"
