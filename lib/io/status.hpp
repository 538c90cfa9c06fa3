// SPDX-License-Identifier: MIT
// The library's one error vocabulary: why a request failed (an Error), the HIP error behind a
// HIP runtime failure, or an errno. lib/api converts it to hipFileError_t or to an ssize_t I/O
// return in one place each (api/status.hpp); nothing below the API speaks C.
#pragma once

#include <sys/types.h>

namespace hipfile::engine {

/// Why an operation failed. The numbers are the C API's hipFileOpError_t (cuFile's), so that the
/// API converts by value; api/status.hpp checks that they agree.
enum class Error : int {
  Success = 0,
  DriverNotInitialized = 5001,
  DriverInvalidProps = 5002,
  DriverUnsupportedLimit = 5003,
  DriverVersionMismatch = 5004,
  DriverVersionReadError = 5005,
  DriverClosing = 5006,
  PlatformNotSupported = 5007,
  IONotSupported = 5008,
  DeviceNotSupported = 5009,
  DriverError = 5010,
  HipDriverError = 5011,
  HipPointerInvalid = 5012,
  HipMemoryTypeInvalid = 5013,
  HipPointerRangeError = 5014,
  HipContextMismatch = 5015,
  InvalidMappingSize = 5016,
  InvalidMappingRange = 5017,
  InvalidFileType = 5018,
  InvalidFileOpenFlag = 5019,
  DIONotSet = 5020,
  InvalidValue = 5022,
  MemoryAlreadyRegistered = 5023,
  MemoryNotRegistered = 5024,
  PermissionDenied = 5025,
  DriverAlreadyOpen = 5026,
  HandleNotRegistered = 5027,
  HandleAlreadyRegistered = 5028,
  DeviceNotFound = 5029,
  InternalError = 5030,
  GetNewFDFailed = 5031,
  DriverSetupError = 5033,
  IODisabled = 5034,
  BatchSubmitFailed = 5035,
  GPUMemoryPinningFailed = 5036,
  BatchFull = 5037,
  AsyncNotSupported = 5038,
  IOMaxError = 5039,
};

struct Status {
  Error op = Error::Success;
  int hip = 0;  // the hipError_t behind Error::HipDriverError
  int sys = 0;  // errno; set only for system-call failures

  bool ok() const noexcept { return op == Error::Success && sys == 0; }
  static Status success() noexcept { return {}; }
  static Status of(Error op) noexcept { return {op, 0, 0}; }
  static Status of_hip(int hip_error) noexcept { return {Error::HipDriverError, hip_error, 0}; }
  static Status of_errno(int e) noexcept { return {Error::Success, 0, e}; }
};

/// Bytes moved, or why not.
struct IoResult {
  ssize_t bytes = 0;
  Status status;
  bool ok() const noexcept { return status.ok(); }
};

}  // namespace hipfile::engine
