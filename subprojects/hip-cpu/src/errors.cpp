// SPDX-License-Identifier: MIT
// Error names and strings, and the thread's last error.
#include "internal.hpp"

namespace {

// HIP keeps the last error per host thread; a failure overwrites it and hipGetLastError resets it.
thread_local hipError_t last_error = hipSuccess;

struct ErrorText {
    hipError_t code;
    const char *name;
    const char *text;  // HIP reuses CUDA's wording for these
};

// Aliases (hipErrorMemoryAllocation, ...) share a value with the spelling listed here, which is
// the one HIP's own hipGetErrorName reports.
constexpr ErrorText kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorIllegalState, "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
};

const ErrorText *lookup(hipError_t e) noexcept {
    for (const auto &t : kErrors)
        if (t.code == e) return &t;
    return nullptr;
}

}  // namespace

namespace hipcpu {

hipError_t ret(hipError_t e) noexcept {
    if (e != hipSuccess && e != hipErrorNotReady) last_error = e;
    return e;
}

}  // namespace hipcpu

extern "C" {

hipError_t hipGetLastError(void) {
    HIPCPU_ENTER();
    hipError_t e = last_error;
    last_error = hipSuccess;
    return e;
}

hipError_t hipPeekAtLastError(void) {
    HIPCPU_ENTER();
    return last_error;
}

// Unknown codes get HIP's fallbacks rather than NULL, so callers can always print the result.
const char *hipGetErrorName(hipError_t error) {
    const ErrorText *t = lookup(error);
    return t ? t->name : "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t error) {
    const ErrorText *t = lookup(error);
    return t ? t->text : "unknown error";
}

hipError_t hipDrvGetErrorName(hipError_t hipError, const char **errorString) {
    if (errorString == nullptr) return hipcpu::ret(hipErrorInvalidValue);
    const ErrorText *t = lookup(hipError);
    *errorString = t ? t->name : nullptr;
    return t ? hipSuccess : hipcpu::ret(hipErrorInvalidValue);
}

hipError_t hipDrvGetErrorString(hipError_t hipError, const char **errorString) {
    if (errorString == nullptr) return hipcpu::ret(hipErrorInvalidValue);
    const ErrorText *t = lookup(hipError);
    *errorString = t ? t->text : nullptr;
    return t ? hipSuccess : hipcpu::ret(hipErrorInvalidValue);
}

}  // extern "C"
