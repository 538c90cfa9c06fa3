// SPDX-License-Identifier: MIT
// The library's Status (io/status.hpp) in the C API's terms, in one place: hipFileError_t for
// calls that return one, the ssize_t of hipFileRead/Write, and the bytes result of async and
// batch I/O.
#pragma once

#include <hipfile/hipfile.h>
#include <sys/types.h>

#include <cerrno>

#include "io/status.hpp"
#include "runtime/batch_table.hpp"
#include "runtime/file_table.hpp"

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

/// Handles are the runtime's file ids, cast.
inline engine::FileId file_id(hipFileHandle_t fh) noexcept { return reinterpret_cast<engine::FileId>(fh); }
inline hipFileHandle_t file_handle(engine::FileId id) noexcept { return reinterpret_cast<hipFileHandle_t>(id); }

inline engine::BatchId batch_id(hipFileBatchHandle_t h) noexcept { return reinterpret_cast<engine::BatchId>(h); }
inline hipFileBatchHandle_t batch_handle(engine::BatchId id) noexcept { return reinterpret_cast<hipFileBatchHandle_t>(id); }

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

/// Bytes-result convention (async *bytes_p and batch event `ret`), one rule for both:
///   >= 0             bytes moved (short at end of file, or the prefix moved before a failure)
///   -errno           a system call failed (range -1 .. -4095, e.g. -EIO = -5), because the
///                    executor thread's errno cannot reach the caller; never "-1, see errno"
///   -hipFileOpError  any other failure (<= -5000), e.g. -hipFileInvalidValue for a size that
///                    grew after submission, -hipFileHandleNotRegistered for a handle deregistered
///                    before the stream reached the operation, -hipFileHipDriverError for a HIP
///                    runtime failure inside the I/O.
inline ssize_t bytes_result(const engine::IoResult& r) noexcept {
  if (r.ok()) return r.bytes;
  if (r.status.sys != 0) return -static_cast<ssize_t>(r.status.sys);
  const engine::Error op = r.status.op == engine::Error::Success ? engine::Error::InternalError : r.status.op;
  return -static_cast<ssize_t>(op);
}

}  // namespace hipfile::api
