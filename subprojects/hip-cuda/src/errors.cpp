// SPDX-License-Identifier: MIT
// cudaError_t -> hipError_t (one explicit table), HIP error names and strings, last error.
#include "internal.hpp"

namespace hipcuda {
namespace {

struct ErrorInfo {
    hipError_t code;
    const char *name;
    const char *text;
};

// Every hipError_t this header declares (aliases under their primary name).
constexpr ErrorInfo kErrors[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorDeinitialized, "hipErrorDeinitialized", "driver shutting down"},
    {hipErrorProfilerDisabled, "hipErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {hipErrorProfilerNotInitialized, "hipErrorProfilerNotInitialized", "profiler is not initialized"},
    {hipErrorProfilerAlreadyStarted, "hipErrorProfilerAlreadyStarted", "profiler already started"},
    {hipErrorProfilerAlreadyStopped, "hipErrorProfilerAlreadyStopped", "profiler already stopped"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {hipErrorInvalidPitchValue, "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {hipErrorInvalidSymbol, "hipErrorInvalidSymbol", "invalid device symbol"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorInvalidMemcpyDirection, "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {hipErrorInsufficientDriver, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {hipErrorMissingConfiguration, "hipErrorMissingConfiguration", "__global__ function call is not configured"},
    {hipErrorPriorLaunchFailure, "hipErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no CUDA-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorInvalidContext, "hipErrorInvalidContext", "invalid device context"},
    {hipErrorContextAlreadyCurrent, "hipErrorContextAlreadyCurrent", "context is already current context"},
    {hipErrorMapFailed, "hipErrorMapFailed", "mapping of buffer object failed"},
    {hipErrorUnmapFailed, "hipErrorUnmapFailed", "unmapping of buffer object failed"},
    {hipErrorArrayIsMapped, "hipErrorArrayIsMapped", "array is mapped"},
    {hipErrorAlreadyMapped, "hipErrorAlreadyMapped", "resource already mapped"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {hipErrorAlreadyAcquired, "hipErrorAlreadyAcquired", "resource already acquired"},
    {hipErrorNotMapped, "hipErrorNotMapped", "resource not mapped"},
    {hipErrorNotMappedAsArray, "hipErrorNotMappedAsArray", "resource not mapped as array"},
    {hipErrorNotMappedAsPointer, "hipErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {hipErrorECCNotCorrectable, "hipErrorECCNotCorrectable", "uncorrectable ECC error encountered"},
    {hipErrorUnsupportedLimit, "hipErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {hipErrorContextAlreadyInUse, "hipErrorContextAlreadyInUse", "exclusive-thread device already in use by a different thread"},
    {hipErrorPeerAccessUnsupported, "hipErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile", "invalid kernel file"},
    {hipErrorInvalidGraphicsContext, "hipErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {hipErrorInvalidSource, "hipErrorInvalidSource", "device kernel image is invalid"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorSharedObjectSymbolNotFound, "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {hipErrorOperatingSystem, "hipErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorIllegalState, "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {hipErrorPeerAccessAlreadyEnabled, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {hipErrorPeerAccessNotEnabled, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {hipErrorSetOnActiveProcess, "hipErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {hipErrorContextIsDestroyed, "hipErrorContextIsDestroyed", "context is destroyed"},
    {hipErrorAssert, "hipErrorAssert", "device-side assert triggered"},
    {hipErrorHostMemoryAlreadyRegistered, "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {hipErrorHostMemoryNotRegistered, "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorCooperativeLaunchTooLarge, "hipErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
    {hipErrorStreamCaptureUnsupported, "hipErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {hipErrorStreamCaptureInvalidated, "hipErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {hipErrorStreamCaptureMerge, "hipErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {hipErrorStreamCaptureUnmatched, "hipErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {hipErrorStreamCaptureUnjoined, "hipErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {hipErrorStreamCaptureIsolation, "hipErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {hipErrorStreamCaptureImplicit, "hipErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {hipErrorCapturedEvent, "hipErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {hipErrorStreamCaptureWrongThread, "hipErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {hipErrorGraphExecUpdateFailure, "hipErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {hipErrorInvalidChannelDescriptor, "hipErrorInvalidChannelDescriptor", "invalid channel descriptor"},
    {hipErrorInvalidTexture, "hipErrorInvalidTexture", "invalid texture"},
    {hipErrorUnknown, "hipErrorUnknown", "unknown error"},
    {hipErrorRuntimeMemory, "hipErrorRuntimeMemory", "runtime memory call returned error"},
    {hipErrorRuntimeOther, "hipErrorRuntimeOther", "runtime call other than memory returned error"},
};

const ErrorInfo *find(hipError_t e) noexcept {
    for (const auto &info : kErrors)
        if (info.code == e) return &info;
    return nullptr;
}

// CUDA runtime error numbers (stable across CUDA 12 and 13; several enumerator names exist only
// in some versions, hence the numbers). CUDA driver (CUresult) codes share these numbers for the
// cases hip-cuda can meet (1, 2, 3, 4, 100, 101, 201, 400, 500, 600, 700, ...).
struct CudaToHip {
    int cuda;
    hipError_t hip;
};

constexpr CudaToHip kCudaToHip[] = {
    {0, hipSuccess},                           // cudaSuccess
    {1, hipErrorInvalidValue},                 // cudaErrorInvalidValue
    {2, hipErrorOutOfMemory},                  // cudaErrorMemoryAllocation
    {3, hipErrorNotInitialized},               // cudaErrorInitializationError
    {4, hipErrorDeinitialized},                // cudaErrorCudartUnloading (CUDA_ERROR_DEINITIALIZED)
    {5, hipErrorProfilerDisabled},             // cudaErrorProfilerDisabled
    {6, hipErrorProfilerNotInitialized},       // cudaErrorProfilerNotInitialized
    {7, hipErrorProfilerAlreadyStarted},       // cudaErrorProfilerAlreadyStarted
    {8, hipErrorProfilerAlreadyStopped},       // cudaErrorProfilerAlreadyStopped
    {9, hipErrorInvalidConfiguration},         // cudaErrorInvalidConfiguration
    {12, hipErrorInvalidPitchValue},           // cudaErrorInvalidPitchValue
    {13, hipErrorInvalidSymbol},               // cudaErrorInvalidSymbol
    {16, hipErrorInvalidValue},                // cudaErrorInvalidHostPointer
    {17, hipErrorInvalidDevicePointer},        // cudaErrorInvalidDevicePointer
    {18, hipErrorInvalidTexture},              // cudaErrorInvalidTexture
    {20, hipErrorInvalidChannelDescriptor},    // cudaErrorInvalidChannelDescriptor
    {21, hipErrorInvalidMemcpyDirection},      // cudaErrorInvalidMemcpyDirection
    {34, hipErrorInsufficientDriver},          // cudaErrorStubLibrary (libcuda is a stub)
    {35, hipErrorInsufficientDriver},          // cudaErrorInsufficientDriver (also: no driver)
    {36, hipErrorInsufficientDriver},          // cudaErrorCallRequiresNewerDriver
    {52, hipErrorMissingConfiguration},        // cudaErrorMissingConfiguration
    {53, hipErrorPriorLaunchFailure},          // cudaErrorPriorLaunchFailure
    {98, hipErrorInvalidDeviceFunction},       // cudaErrorInvalidDeviceFunction
    {100, hipErrorNoDevice},                   // cudaErrorNoDevice
    {101, hipErrorInvalidDevice},              // cudaErrorInvalidDevice
    {200, hipErrorInvalidImage},               // cudaErrorInvalidKernelImage
    {201, hipErrorInvalidContext},             // cudaErrorDeviceUninitialized (CUDA_ERROR_INVALID_CONTEXT)
    {202, hipErrorContextAlreadyCurrent},      // CUDA_ERROR_CONTEXT_ALREADY_CURRENT (driver only)
    {205, hipErrorMapFailed},                  // cudaErrorMapBufferObjectFailed
    {206, hipErrorUnmapFailed},                // cudaErrorUnmapBufferObjectFailed
    {207, hipErrorArrayIsMapped},              // cudaErrorArrayIsMapped
    {208, hipErrorAlreadyMapped},              // cudaErrorAlreadyMapped
    {209, hipErrorNoBinaryForGpu},             // cudaErrorNoKernelImageForDevice
    {210, hipErrorAlreadyAcquired},            // cudaErrorAlreadyAcquired
    {211, hipErrorNotMapped},                  // cudaErrorNotMapped
    {212, hipErrorNotMappedAsArray},           // cudaErrorNotMappedAsArray
    {213, hipErrorNotMappedAsPointer},         // cudaErrorNotMappedAsPointer
    {214, hipErrorECCNotCorrectable},          // cudaErrorECCUncorrectable
    {215, hipErrorUnsupportedLimit},           // cudaErrorUnsupportedLimit
    {216, hipErrorContextAlreadyInUse},        // cudaErrorDeviceAlreadyInUse
    {217, hipErrorPeerAccessUnsupported},      // cudaErrorPeerAccessUnsupported
    {218, hipErrorInvalidKernelFile},          // cudaErrorInvalidPtx
    {219, hipErrorInvalidGraphicsContext},     // cudaErrorInvalidGraphicsContext
    {300, hipErrorInvalidSource},              // cudaErrorInvalidSource
    {301, hipErrorFileNotFound},               // cudaErrorFileNotFound
    {302, hipErrorSharedObjectSymbolNotFound}, // cudaErrorSharedObjectSymbolNotFound
    {303, hipErrorSharedObjectInitFailed},     // cudaErrorSharedObjectInitFailed
    {304, hipErrorOperatingSystem},            // cudaErrorOperatingSystem
    {400, hipErrorInvalidHandle},              // cudaErrorInvalidResourceHandle
    {401, hipErrorIllegalState},               // cudaErrorIllegalState
    {500, hipErrorNotFound},                   // cudaErrorSymbolNotFound (CUDA_ERROR_NOT_FOUND)
    {600, hipErrorNotReady},                   // cudaErrorNotReady
    {700, hipErrorIllegalAddress},             // cudaErrorIllegalAddress
    {701, hipErrorLaunchOutOfResources},       // cudaErrorLaunchOutOfResources
    {702, hipErrorLaunchTimeOut},              // cudaErrorLaunchTimeout
    {704, hipErrorPeerAccessAlreadyEnabled},   // cudaErrorPeerAccessAlreadyEnabled
    {705, hipErrorPeerAccessNotEnabled},       // cudaErrorPeerAccessNotEnabled
    {708, hipErrorSetOnActiveProcess},         // cudaErrorSetOnActiveProcess
    {709, hipErrorContextIsDestroyed},         // cudaErrorContextIsDestroyed
    {710, hipErrorAssert},                     // cudaErrorAssert
    {712, hipErrorHostMemoryAlreadyRegistered},// cudaErrorHostMemoryAlreadyRegistered
    {713, hipErrorHostMemoryNotRegistered},    // cudaErrorHostMemoryNotRegistered
    {719, hipErrorLaunchFailure},              // cudaErrorLaunchFailure
    {720, hipErrorCooperativeLaunchTooLarge},  // cudaErrorCooperativeLaunchTooLarge
    {801, hipErrorNotSupported},               // cudaErrorNotSupported
    {803, hipErrorInsufficientDriver},         // cudaErrorSystemDriverMismatch
    {900, hipErrorStreamCaptureUnsupported},   // cudaErrorStreamCaptureUnsupported
    {901, hipErrorStreamCaptureInvalidated},   // cudaErrorStreamCaptureInvalidated
    {902, hipErrorStreamCaptureMerge},         // cudaErrorStreamCaptureMerge
    {903, hipErrorStreamCaptureUnmatched},     // cudaErrorStreamCaptureUnmatched
    {904, hipErrorStreamCaptureUnjoined},      // cudaErrorStreamCaptureUnjoined
    {905, hipErrorStreamCaptureIsolation},     // cudaErrorStreamCaptureIsolation
    {906, hipErrorStreamCaptureImplicit},      // cudaErrorStreamCaptureImplicit
    {907, hipErrorCapturedEvent},              // cudaErrorCapturedEvent
    {908, hipErrorStreamCaptureWrongThread},   // cudaErrorStreamCaptureWrongThread
    {910, hipErrorGraphExecUpdateFailure},     // cudaErrorGraphExecUpdateFailure
    {999, hipErrorUnknown},                    // cudaErrorUnknown
};

// The numbers above are the enumerators' values in CUDA 12.0 .. 13.x; check the ones whose
// names exist everywhere.
static_assert(cudaErrorInvalidValue == 1 && cudaErrorMemoryAllocation == 2 &&
              cudaErrorInitializationError == 3 && cudaErrorCudartUnloading == 4 &&
              cudaErrorInvalidDevicePointer == 17 && cudaErrorInvalidMemcpyDirection == 21 &&
              cudaErrorStubLibrary == 34 && cudaErrorInsufficientDriver == 35 &&
              cudaErrorCallRequiresNewerDriver == 36 && cudaErrorNoDevice == 100 &&
              cudaErrorInvalidDevice == 101 && cudaErrorDeviceUninitialized == 201 &&
              cudaErrorInvalidResourceHandle == 400 && cudaErrorIllegalState == 401 &&
              cudaErrorSymbolNotFound == 500 && cudaErrorNotReady == 600 &&
              cudaErrorIllegalAddress == 700 && cudaErrorHostMemoryAlreadyRegistered == 712 &&
              cudaErrorHostMemoryNotRegistered == 713 && cudaErrorLaunchFailure == 719 &&
              cudaErrorNotSupported == 801 && cudaErrorSystemDriverMismatch == 803 &&
              cudaErrorStreamCaptureUnsupported == 900 && cudaErrorUnknown == 999,
              "CUDA error numbering changed");

thread_local hipError_t t_last_error = hipSuccess;

} // namespace

hipError_t to_hip(int cuda_code) noexcept {
    for (const auto &m : kCudaToHip)
        if (m.cuda == cuda_code) return m.hip;
    return hipErrorUnknown;
}

hipError_t record(hipError_t e) noexcept {
    if (e != hipSuccess && e != hipErrorNotReady) t_last_error = e;
    return e;
}

void drop_cuda_error() noexcept { (void)cudaGetLastError(); }

} // namespace hipcuda

using namespace hipcuda;

extern "C" {

hipError_t hipGetLastError(void) {
    // HIP semantics: the last error that a hip* call of this thread returned. Every hip* call
    // records its result here; cudart's own record is reset alongside (it may hold errors of
    // internal probes, or, where no driver is loaded, the initialization failure forever).
    const hipError_t e = t_last_error;
    t_last_error = hipSuccess;
    (void)cudaGetLastError();
    return e;
}

hipError_t hipPeekAtLastError(void) { return t_last_error; }

const char *hipGetErrorName(hipError_t error) {
    const ErrorInfo *info = find(error);
    return info ? info->name : "hipErrorUnknown";
}

const char *hipGetErrorString(hipError_t error) {
    const ErrorInfo *info = find(error);
    return info ? info->text : "unknown error";
}

} // extern "C"
