/* SPDX-License-Identifier: MIT */
/*
 * hip-cuda: the HIP runtime API subset of subprojects/HIP_SUBSET.md, implemented over the CUDA
 * runtime (libhip-cuda). HIP's names, numeric values and struct layouts (ROCm 6.x); no CUDA
 * header is included here, so code compiling against this header sees HIP types only.
 * C11 and C++ clean.
 */
#ifndef HIP_CUDA_HIP_RUNTIME_API_H
#define HIP_CUDA_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
/* Marks this implementation (as opposed to NVIDIA's hipother headers). */
#define __HIP_CUDA_SUBPROJECT__ 1

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: HIP's values. Every CUDA error without a HIP counterpart becomes hipErrorUnknown. */
typedef enum hipError_t {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInitializationError = 3,
    hipErrorDeinitialized = 4,
    hipErrorProfilerDisabled = 5,
    hipErrorProfilerNotInitialized = 6,
    hipErrorProfilerAlreadyStarted = 7,
    hipErrorProfilerAlreadyStopped = 8,
    hipErrorInvalidConfiguration = 9,
    hipErrorInvalidPitchValue = 12,
    hipErrorInvalidSymbol = 13,
    hipErrorInvalidDevicePointer = 17,
    hipErrorInvalidMemcpyDirection = 21,
    hipErrorInsufficientDriver = 35,
    hipErrorMissingConfiguration = 52,
    hipErrorPriorLaunchFailure = 53,
    hipErrorInvalidDeviceFunction = 98,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidImage = 200,
    hipErrorInvalidContext = 201,
    hipErrorContextAlreadyCurrent = 202,
    hipErrorMapFailed = 205,
    hipErrorMapBufferObjectFailed = 205,
    hipErrorUnmapFailed = 206,
    hipErrorArrayIsMapped = 207,
    hipErrorAlreadyMapped = 208,
    hipErrorNoBinaryForGpu = 209,
    hipErrorAlreadyAcquired = 210,
    hipErrorNotMapped = 211,
    hipErrorNotMappedAsArray = 212,
    hipErrorNotMappedAsPointer = 213,
    hipErrorECCNotCorrectable = 214,
    hipErrorUnsupportedLimit = 215,
    hipErrorContextAlreadyInUse = 216,
    hipErrorPeerAccessUnsupported = 217,
    hipErrorInvalidKernelFile = 218,
    hipErrorInvalidGraphicsContext = 219,
    hipErrorInvalidSource = 300,
    hipErrorFileNotFound = 301,
    hipErrorSharedObjectSymbolNotFound = 302,
    hipErrorSharedObjectInitFailed = 303,
    hipErrorOperatingSystem = 304,
    hipErrorInvalidHandle = 400,
    hipErrorInvalidResourceHandle = 400,
    hipErrorIllegalState = 401,
    hipErrorNotFound = 500,
    hipErrorNotReady = 600,
    hipErrorIllegalAddress = 700,
    hipErrorLaunchOutOfResources = 701,
    hipErrorLaunchTimeOut = 702,
    hipErrorPeerAccessAlreadyEnabled = 704,
    hipErrorPeerAccessNotEnabled = 705,
    hipErrorSetOnActiveProcess = 708,
    hipErrorContextIsDestroyed = 709,
    hipErrorAssert = 710,
    hipErrorHostMemoryAlreadyRegistered = 712,
    hipErrorHostMemoryNotRegistered = 713,
    hipErrorLaunchFailure = 719,
    hipErrorCooperativeLaunchTooLarge = 720,
    hipErrorNotSupported = 801,
    hipErrorStreamCaptureUnsupported = 900,
    hipErrorStreamCaptureInvalidated = 901,
    hipErrorStreamCaptureMerge = 902,
    hipErrorStreamCaptureUnmatched = 903,
    hipErrorStreamCaptureUnjoined = 904,
    hipErrorStreamCaptureIsolation = 905,
    hipErrorStreamCaptureImplicit = 906,
    hipErrorCapturedEvent = 907,
    hipErrorStreamCaptureWrongThread = 908,
    hipErrorGraphExecUpdateFailure = 910,
    hipErrorInvalidChannelDescriptor = 911,
    hipErrorInvalidTexture = 912,
    hipErrorUnknown = 999,
    hipErrorRuntimeMemory = 1052,
    hipErrorRuntimeOther = 1053
} hipError_t;

typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef int hipDevice_t;
typedef void *hipDeviceptr_t;
typedef void (*hipHostFn_t)(void *userData);

typedef enum hipMemcpyKind {
    hipMemcpyHostToHost = 0,
    hipMemcpyHostToDevice = 1,
    hipMemcpyDeviceToHost = 2,
    hipMemcpyDeviceToDevice = 3,
    hipMemcpyDefault = 4
} hipMemcpyKind;

/* ROCm 6 values (they coincide with cudaMemoryType). */
typedef enum hipMemoryType {
    hipMemoryTypeUnregistered = 0,
    hipMemoryTypeHost = 1,
    hipMemoryTypeDevice = 2,
    hipMemoryTypeManaged = 3,
    hipMemoryTypeArray = 10,
    hipMemoryTypeUnified = 11
} hipMemoryType;

typedef struct hipPointerAttribute_t {
    union {
        enum hipMemoryType type;
        enum hipMemoryType memoryType; /* ROCm 5 spelling */
    };
    int device;
    void *devicePointer;
    void *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} hipPointerAttribute_t;

/* hipPointerGetAttribute's attributes: HIP's numbering, which is CUDA's CUpointer_attribute's. */
typedef enum hipPointer_attribute {
    HIP_POINTER_ATTRIBUTE_CONTEXT = 1,
    HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,      /* unsigned: a hipMemoryType (not a CUmemorytype) */
    HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
    HIP_POINTER_ATTRIBUTE_HOST_POINTER,
    HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
    HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS,
    HIP_POINTER_ATTRIBUTE_BUFFER_ID,
    HIP_POINTER_ATTRIBUTE_IS_MANAGED,
    HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
    HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, /* void *: the allocation's base */
    HIP_POINTER_ATTRIBUTE_RANGE_SIZE,       /* size_t: the allocation's size */
    HIP_POINTER_ATTRIBUTE_MAPPED,
    HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
    HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
    HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS,
    HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
} hipPointer_attribute;

/*
 * hip-cuda's own device properties (not ROCm's layout). The contract (HIP_SUBSET.md) covers
 * name .. managedMemory; the fields after them are extras filled from cudaDeviceProp as well.
 */
typedef struct hipDeviceProp_t {
    char name[256];
    size_t totalGlobalMem;
    int major;
    int minor;
    int multiProcessorCount;
    int pciDomainID;
    int pciBusID;
    int pciDeviceID;
    int canMapHostMemory;
    int asyncEngineCount;
    int unifiedAddressing;
    int managedMemory;
    /* extras */
    size_t sharedMemPerBlock;
    size_t totalConstMem;
    int warpSize;
    int maxThreadsPerBlock;
    int memoryBusWidth;
    int l2CacheSize;
    int integrated;
    int concurrentManagedAccess;
    int pageableMemoryAccess;
    int isMultiGpuBoard;
} hipDeviceProp_t;

/* Flags */
#define hipStreamDefault 0x0u
#define hipStreamNonBlocking 0x1u

#define hipEventDefault 0x0u
#define hipEventBlockingSync 0x1u
#define hipEventDisableTiming 0x2u

#define hipHostMallocDefault 0x0u
#define hipHostMallocPortable 0x1u
#define hipHostMallocMapped 0x2u
#define hipHostMallocWriteCombined 0x4u

#define hipHostRegisterDefault 0x0u
#define hipHostRegisterPortable 0x1u
#define hipHostRegisterMapped 0x2u

#define hipMemAttachGlobal 0x1u
#define hipMemAttachHost 0x2u

/* hipStreamWaitValue32 conditions (HIP's values) */
#define hipStreamWaitValueGte 0x0u
#define hipStreamWaitValueEq 0x1u
#define hipStreamWaitValueAnd 0x2u
#define hipStreamWaitValueNor 0x3u

/* Init and version */
hipError_t hipInit(unsigned int flags);
hipError_t hipRuntimeGetVersion(int *runtimeVersion);
hipError_t hipDriverGetVersion(int *driverVersion);

/* Errors */
hipError_t hipGetLastError(void);
hipError_t hipPeekAtLastError(void);
const char *hipGetErrorName(hipError_t error);
const char *hipGetErrorString(hipError_t error);

/* Devices */
hipError_t hipGetDeviceCount(int *count);
hipError_t hipGetDevice(int *deviceId);
hipError_t hipSetDevice(int deviceId);
hipError_t hipDeviceSynchronize(void);
hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId);
hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
hipError_t hipMemGetInfo(size_t *freeBytes, size_t *totalBytes);

/* Memory */
hipError_t hipMalloc(void **ptr, size_t size);
hipError_t hipFree(void *ptr);
hipError_t hipMallocManaged(void **devPtr, size_t size, unsigned int flags);
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
hipError_t hipHostFree(void *ptr);
hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags);
hipError_t hipHostUnregister(void *hostPtr);
hipError_t hipHostGetDevicePointer(void **devPtr, void *hostPtr, unsigned int flags);

/* Copies */
hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind);
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream);
hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream);
hipError_t hipMemset(void *dst, int value, size_t sizeBytes);
hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream);

/* Queries */
hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr);
hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr);
/* cuPointerGetAttribute: the range of pinned host memory too (which hipMemGetAddressRange, like
 * cuMemGetAddressRange, refuses). */
hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr);

/* Streams */
hipError_t hipStreamCreate(hipStream_t *stream);
hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
hipError_t hipStreamDestroy(hipStream_t stream);
hipError_t hipStreamSynchronize(hipStream_t stream);
hipError_t hipStreamQuery(hipStream_t stream);
hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags);
hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags);
hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData);
/* Over the driver's cuStreamWaitValue32_v2; ptr is a device address (a mapped host word's
 * hipHostGetDevicePointer alias, or device memory). The mask must be 0xFFFFFFFF except for
 * hipStreamWaitValueAnd/Nor, whose mask is folded into the value. */
hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask);

/* Events */
hipError_t hipEventCreate(hipEvent_t *event);
hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned int flags);
hipError_t hipEventDestroy(hipEvent_t event);
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream);
hipError_t hipEventSynchronize(hipEvent_t event);
hipError_t hipEventQuery(hipEvent_t event);
hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIP_CUDA_HIP_RUNTIME_API_H */
