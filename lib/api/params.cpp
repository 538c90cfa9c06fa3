// SPDX-License-Identifier: MIT
// Parameters and driver properties. Not implemented yet (issue 6): every entry point links and
// reports hipFileInternalError.
#include <hipfile/hipfile.h>

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t*) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool, size_t) { return {hipFileInternalError, hipSuccess}; }
HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t) { return {hipFileInternalError, hipSuccess}; }
HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t) { return {hipFileInternalError, hipSuccess}; }
HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t) { return {hipFileInternalError, hipSuccess}; }

HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t, size_t*) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t, bool*) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t, char*, int) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t, size_t) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t, bool) {
  return {hipFileInternalError, hipSuccess};
}
HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t, const char*) {
  return {hipFileInternalError, hipSuccess};
}

}  // extern "C"
