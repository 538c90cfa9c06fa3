// SPDX-License-Identifier: MIT
// The library's Status (io/status.hpp) in the C API's terms, in one place: hipFileError_t for
// calls that return one, the ssize_t of hipFileRead/Write, and the bytes result of async and
// batch I/O.
#pragma once

#include <hipfile/hipfile.h>
#include <sys/types.h>

#include <cerrno>

#include "io/status.hpp"

namespace hipfile::api {

// The C API converts by value: every engine::Error is the hipFileOpError_t of the same name.
static_assert(static_cast<int>(engine::Error::Success) == hipFileSuccess);
static_assert(static_cast<int>(engine::Error::DriverNotInitialized) == hipFileDriverNotInitialized);
static_assert(static_cast<int>(engine::Error::DriverInvalidProps) == hipFileDriverInvalidProps);
static_assert(static_cast<int>(engine::Error::DriverUnsupportedLimit) == hipFileDriverUnsupportedLimit);
static_assert(static_cast<int>(engine::Error::DriverVersionMismatch) == hipFileDriverVersionMismatch);
static_assert(static_cast<int>(engine::Error::DriverVersionReadError) == hipFileDriverVersionReadError);
static_assert(static_cast<int>(engine::Error::DriverClosing) == hipFileDriverClosing);
static_assert(static_cast<int>(engine::Error::PlatformNotSupported) == hipFilePlatformNotSupported);
static_assert(static_cast<int>(engine::Error::IONotSupported) == hipFileIONotSupported);
static_assert(static_cast<int>(engine::Error::DeviceNotSupported) == hipFileDeviceNotSupported);
static_assert(static_cast<int>(engine::Error::DriverError) == hipFileDriverError);
static_assert(static_cast<int>(engine::Error::HipDriverError) == hipFileHipDriverError);
static_assert(static_cast<int>(engine::Error::HipPointerInvalid) == hipFileHipPointerInvalid);
static_assert(static_cast<int>(engine::Error::HipMemoryTypeInvalid) == hipFileHipMemoryTypeInvalid);
static_assert(static_cast<int>(engine::Error::HipPointerRangeError) == hipFileHipPointerRangeError);
static_assert(static_cast<int>(engine::Error::HipContextMismatch) == hipFileHipContextMismatch);
static_assert(static_cast<int>(engine::Error::InvalidMappingSize) == hipFileInvalidMappingSize);
static_assert(static_cast<int>(engine::Error::InvalidMappingRange) == hipFileInvalidMappingRange);
static_assert(static_cast<int>(engine::Error::InvalidFileType) == hipFileInvalidFileType);
static_assert(static_cast<int>(engine::Error::InvalidFileOpenFlag) == hipFileInvalidFileOpenFlag);
static_assert(static_cast<int>(engine::Error::DIONotSet) == hipFileDIONotSet);
static_assert(static_cast<int>(engine::Error::InvalidValue) == hipFileInvalidValue);
static_assert(static_cast<int>(engine::Error::MemoryAlreadyRegistered) == hipFileMemoryAlreadyRegistered);
static_assert(static_cast<int>(engine::Error::MemoryNotRegistered) == hipFileMemoryNotRegistered);
static_assert(static_cast<int>(engine::Error::PermissionDenied) == hipFilePermissionDenied);
static_assert(static_cast<int>(engine::Error::DriverAlreadyOpen) == hipFileDriverAlreadyOpen);
static_assert(static_cast<int>(engine::Error::HandleNotRegistered) == hipFileHandleNotRegistered);
static_assert(static_cast<int>(engine::Error::HandleAlreadyRegistered) == hipFileHandleAlreadyRegistered);
static_assert(static_cast<int>(engine::Error::DeviceNotFound) == hipFileDeviceNotFound);
static_assert(static_cast<int>(engine::Error::InternalError) == hipFileInternalError);
static_assert(static_cast<int>(engine::Error::GetNewFDFailed) == hipFileGetNewFDFailed);
static_assert(static_cast<int>(engine::Error::DriverSetupError) == hipFileDriverSetupError);
static_assert(static_cast<int>(engine::Error::IODisabled) == hipFileIODisabled);
static_assert(static_cast<int>(engine::Error::BatchSubmitFailed) == hipFileBatchSubmitFailed);
static_assert(static_cast<int>(engine::Error::GPUMemoryPinningFailed) == hipFileGPUMemoryPinningFailed);
static_assert(static_cast<int>(engine::Error::BatchFull) == hipFileBatchFull);
static_assert(static_cast<int>(engine::Error::AsyncNotSupported) == hipFileAsyncNotSupported);
static_assert(static_cast<int>(engine::Error::IOMaxError) == hipFileIOMaxError);

inline hipFileOpError_t to_op(engine::Error e) noexcept { return static_cast<hipFileOpError_t>(e); }

inline hipFileError_t to_error(const engine::Status& st) noexcept {
  if (st.sys != 0) return {hipFileInternalError, hipSuccess};
  const bool hip = st.op == engine::Error::HipDriverError;
  return {to_op(st.op), hip ? static_cast<hipError_t>(st.hip) : hipSuccess};
}

/// I/O return convention: -1 with errno set for system errors, else the negated op error.
inline ssize_t to_io_return(const engine::Status& st) noexcept {
  if (st.sys != 0) {
    errno = st.sys;
    return -1;
  }
  return -static_cast<ssize_t>(st.op);
}

inline ssize_t to_io_return(const engine::IoResult& r) noexcept { return r.ok() ? r.bytes : to_io_return(r.status); }

}  // namespace hipfile::api
