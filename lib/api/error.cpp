// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include "api/guard.hpp"

extern "C" {

HIPFILE_API const char* hipFileGetOpErrorString(hipFileOpError_t status) {
  switch (hipfile::api::enum_value(status)) {  // any int from C: compared as one
    case hipFileSuccess: return "hipFile success";
    case hipFileDriverNotInitialized: return "hipFile driver is not initialized";
    case hipFileDriverInvalidProps: return "invalid driver property";
    case hipFileDriverUnsupportedLimit: return "driver property value out of range";
    case hipFileDriverVersionMismatch: return "driver version mismatch";
    case hipFileDriverVersionReadError: return "driver version read error";
    case hipFileDriverClosing: return "driver is closing or closed";
    case hipFilePlatformNotSupported: return "platform not supported";
    case hipFileIONotSupported: return "I/O not supported for this file or handle type";
    case hipFileDeviceNotSupported: return "device not supported";
    case hipFileDriverError: return "driver error";
    case hipFileHipDriverError: return "HIP runtime error";
    case hipFileHipPointerInvalid: return "invalid HIP pointer";
    case hipFileHipMemoryTypeInvalid: return "invalid HIP memory type";
    case hipFileHipPointerRangeError: return "HIP pointer range exceeds the allocation";
    case hipFileHipContextMismatch: return "HIP context mismatch";
    case hipFileInvalidMappingSize: return "invalid mapping size";
    case hipFileInvalidMappingRange: return "invalid mapping range";
    case hipFileInvalidFileType: return "invalid file type (not a regular file or block device)";
    case hipFileInvalidFileOpenFlag: return "invalid file open flags";
    case hipFileDIONotSet: return "O_DIRECT not set";
    case hipFileInvalidValue: return "invalid argument";
    case hipFileMemoryAlreadyRegistered: return "memory already registered";
    case hipFileMemoryNotRegistered: return "memory not registered";
    case hipFilePermissionDenied: return "permission denied";
    case hipFileDriverAlreadyOpen: return "driver is already open";
    case hipFileHandleNotRegistered: return "file handle not registered";
    case hipFileHandleAlreadyRegistered: return "file handle already registered";
    case hipFileDeviceNotFound: return "device not found";
    case hipFileInternalError: return "internal error";
    case hipFileGetNewFDFailed: return "failed to open a new file descriptor";
    case hipFileDriverSetupError: return "driver setup error";
    case hipFileIODisabled: return "I/O disabled by configuration (compat mode not allowed)";
    case hipFileBatchSubmitFailed: return "batch submit failed";
    case hipFileGPUMemoryPinningFailed: return "GPU memory pinning failed";
    case hipFileBatchFull: return "batch is full";
    case hipFileAsyncNotSupported: return "async I/O not supported";
    case hipFileIOMaxError: break;
  }
  return "Unknown hipFile error";
}

HIPFILE_API hipFileError_t hipFileGetVersion(unsigned* major, unsigned* minor, unsigned* patch) {
  if (major) *major = HIPFILE_VERSION_MAJOR;
  if (minor) *minor = HIPFILE_VERSION_MINOR;
  if (patch) *patch = HIPFILE_VERSION_PATCH;
  return {hipFileSuccess, hipSuccess};
}

}  // extern "C"
