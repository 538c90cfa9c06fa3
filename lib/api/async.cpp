// SPDX-License-Identifier: MIT
// Stream-ordered I/O. Not implemented yet (issue 5): every entry point links and reports
// hipFileInternalError, as upstream does for what it has not implemented.
#include <hipfile/hipfile.h>

extern "C" {

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t, void*, size_t*, hoff_t*, hoff_t*, ssize_t*,
                                            hipStream_t) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t, void*, size_t*, hoff_t*, hoff_t*, ssize_t*,
                                             hipStream_t) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t, unsigned) {
  return {hipFileInternalError, hipSuccess};
}

HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t) {
  return {hipFileInternalError, hipSuccess};
}

}  // extern "C"
