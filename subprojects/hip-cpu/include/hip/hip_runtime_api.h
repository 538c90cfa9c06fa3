// SPDX-License-Identifier: MIT
/*
 * hip-cpu: the HIP runtime API subset of subprojects/HIP_SUBSET.md, implemented on the CPU.
 *
 * Names, numeric values and the hipPointerAttribute_t layout follow HIP (ROCm 6.x) so that code
 * written against this header builds unchanged against a real ROCm. hipDeviceProp_t is hip-cpu's
 * own struct (the contract only lets callers use a few named fields of it).
 *
 * The header is valid C11 and C++ (every function has C linkage).
 */
#ifndef HIPCPU_HIP_RUNTIME_API_H
#define HIPCPU_HIP_RUNTIME_API_H

#include <stddef.h>
#include <stdint.h>

#ifndef __HIP_PLATFORM_CPU__
#define __HIP_PLATFORM_CPU__ 1
#endif

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

/* Default arguments exist only in C++, as in HIP's own header. */
#if defined(__cplusplus)
#define HIPCPU_DPARM(x) = x
#else
#define HIPCPU_DPARM(x)
#endif

#if defined(__GNUC__)
#define HIPCPU_API_EXPORT __attribute__((visibility("default")))
#else
#define HIPCPU_API_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Errors (HIP's numeric values) ------------------------------------------------------ */
typedef enum hipError_t {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    hipErrorMemoryAllocation = 2,
    hipErrorNotInitialized = 3,
    hipErrorInitializationError = 3,
    hipErrorDeinitialized = 4,
    hipErrorInvalidConfiguration = 9,
    hipErrorInvalidPitchValue = 12,
    hipErrorInvalidSymbol = 13,
    hipErrorInvalidDevicePointer = 17,
    hipErrorInvalidMemcpyDirection = 21,
    hipErrorInsufficientDriver = 35,
    hipErrorNoDevice = 100,
    hipErrorInvalidDevice = 101,
    hipErrorInvalidContext = 201,
    hipErrorInvalidHandle = 400,
    hipErrorInvalidResourceHandle = 400,
    hipErrorIllegalState = 401,
    hipErrorNotFound = 500,
    hipErrorNotReady = 600,
    hipErrorIllegalAddress = 700,
    hipErrorLaunchOutOfResources = 701,
    hipErrorPeerAccessAlreadyEnabled = 704,
    hipErrorPeerAccessNotEnabled = 705,
    hipErrorHostMemoryAlreadyRegistered = 712,
    hipErrorHostMemoryNotRegistered = 713,
    hipErrorLaunchFailure = 719,
    hipErrorNotSupported = 801,
    hipErrorStreamCaptureUnsupported = 900,
    hipErrorUnknown = 999
} hipError_t;

/* ---- Handles and basic types ------------------------------------------------------------ */
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

/* ROCm 6 values (ROCm 5 numbered these differently; see HIP_SUBSET.md). */
typedef enum hipMemoryType {
    hipMemoryTypeUnregistered = 0,
    hipMemoryTypeHost = 1,
    hipMemoryTypeDevice = 2,
    hipMemoryTypeManaged = 3,
    hipMemoryTypeArray = 10,
    hipMemoryTypeUnified = 11
} hipMemoryType;

typedef struct hipPointerAttribute_t {
    /* Anonymous unions are C11: __extension__ keeps -std=c99 -pedantic quiet (same layout). */
#if defined(__GNUC__)
    __extension__
#endif
    union {
        enum hipMemoryType type;
        enum hipMemoryType memoryType; /* ROCm 5 spelling of the same field */
    };
    int device;
    void *devicePointer;
    void *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} hipPointerAttribute_t;

/* hipPointerGetAttribute's attributes; HIP's (and CUDA's CUpointer_attribute's) numbering. hip-cpu
 * answers the ones marked; the others are hipErrorInvalidValue. */
typedef enum hipPointer_attribute {
    HIP_POINTER_ATTRIBUTE_CONTEXT = 1,
    HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,             /* answered: unsigned, a hipMemoryType */
    HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,          /* answered: void * */
    HIP_POINTER_ATTRIBUTE_HOST_POINTER,            /* answered: void *, null for device memory */
    HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
    HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS,
    HIP_POINTER_ATTRIBUTE_BUFFER_ID,               /* answered: unsigned long long, never reused */
    HIP_POINTER_ATTRIBUTE_IS_MANAGED,              /* answered: unsigned, 0 or 1 */
    HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL,          /* answered: int */
    HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
    HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR,        /* answered: void *, the allocation's base */
    HIP_POINTER_ATTRIBUTE_RANGE_SIZE,              /* answered: size_t, the allocation's size */
    HIP_POINTER_ATTRIBUTE_MAPPED,
    HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
    HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
    HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS,
    HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
} hipPointer_attribute;

/* hip-cpu's own device properties; field names are HIP's. */
typedef struct hipDeviceProp_t {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    size_t totalConstMem;
    int major;
    int minor;
    size_t textureAlignment;
    int deviceOverlap;
    int multiProcessorCount;
    int kernelExecTimeoutEnabled;
    int integrated;
    int canMapHostMemory;
    int computeMode;
    int concurrentKernels;
    int pciDomainID;
    int pciBusID;
    int pciDeviceID;
    int asyncEngineCount;
    int unifiedAddressing;
    int memoryClockRate;
    int memoryBusWidth;
    int l2CacheSize;
    int maxThreadsPerMultiProcessor;
    int managedMemory;
    int concurrentManagedAccess;
    int pageableMemoryAccess;
    int isMultiGpuBoard;
    char gcnArchName[256];
} hipDeviceProp_t;

/* ---- Flags -------------------------------------------------------------------------------- */
#define hipStreamDefault 0x0
#define hipStreamNonBlocking 0x1

#define hipEventDefault 0x0
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2

#define hipHostMallocDefault 0x0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4

#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2

#define hipMemAttachGlobal 0x01
#define hipMemAttachHost 0x02

/* hipExtMallocWithFlags (HIP's values). Fine-grained and uncached device memory is memory the
 * host can also address (managed memory here); signal memory is an 8-byte, zeroed, host-visible
 * word for hipStreamWaitValue32/64 and hipStreamWriteValue32/64. */
#define hipDeviceMallocDefault 0x0
#define hipDeviceMallocFinegrained 0x1
#define hipMallocSignalMemory 0x2
#define hipDeviceMallocUncached 0x3

/* hipStreamWaitValue32 conditions (HIP's values) */
#define hipStreamWaitValueGte 0x0
#define hipStreamWaitValueEq 0x1
#define hipStreamWaitValueAnd 0x2
#define hipStreamWaitValueNor 0x3

/* hipDeviceGetAttribute: HIP's numbers for the attributes hip-cpu answers (any other value is
 * hipErrorInvalidValue). The answers are the device's hipDeviceProp_t fields, and the truth
 * about what hip-cpu implements (stream wait values: yes; image support, VMM: no). */
typedef enum hipDeviceAttribute_t {
    hipDeviceAttributeCudaCompatibleBegin = 0,
    hipDeviceAttributeEccEnabled = 0,
    hipDeviceAttributeAsyncEngineCount = 2,
    hipDeviceAttributeCanMapHostMemory = 3,
    hipDeviceAttributeCanUseHostPointerForRegisteredMem = 4,
    hipDeviceAttributeClockRate = 5,
    hipDeviceAttributeComputeMode = 6,
    hipDeviceAttributeConcurrentKernels = 8,
    hipDeviceAttributeConcurrentManagedAccess = 9,
    hipDeviceAttributeDeviceOverlap = 12,
    hipDeviceAttributeDirectManagedMemAccessFromHost = 13,
    hipDeviceAttributeIntegrated = 16,
    hipDeviceAttributeIsMultiGpuBoard = 17,
    hipDeviceAttributeKernelExecTimeout = 18,
    hipDeviceAttributeL2CacheSize = 19,
    hipDeviceAttributeComputeCapabilityMajor = 23,
    hipDeviceAttributeManagedMemory = 24,
    hipDeviceAttributeMaxBlockDimX = 26,
    hipDeviceAttributeMaxBlockDimY = 27,
    hipDeviceAttributeMaxBlockDimZ = 28,
    hipDeviceAttributeMaxGridDimX = 29,
    hipDeviceAttributeMaxGridDimY = 30,
    hipDeviceAttributeMaxGridDimZ = 31,
    hipDeviceAttributeMaxThreadsPerBlock = 56,
    hipDeviceAttributeMaxThreadsPerMultiProcessor = 57,
    hipDeviceAttributeMaxPitch = 58,
    hipDeviceAttributeMemoryBusWidth = 59,
    hipDeviceAttributeMemoryClockRate = 60,
    hipDeviceAttributeComputeCapabilityMinor = 61,
    hipDeviceAttributeMultiprocessorCount = 63,
    hipDeviceAttributePageableMemoryAccess = 65,
    hipDeviceAttributePageableMemoryAccessUsesHostPageTables = 66,
    hipDeviceAttributePciBusId = 67,
    hipDeviceAttributePciDeviceId = 68,
    hipDeviceAttributePciDomainId = 69,
    hipDeviceAttributePciDomainID = 69,
    hipDeviceAttributeMaxRegistersPerBlock = 71,
    hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
    hipDeviceAttributeTextureAlignment = 81,
    hipDeviceAttributeTotalConstantMemory = 83,
    hipDeviceAttributeTotalGlobalMem = 84,
    hipDeviceAttributeUnifiedAddressing = 85,
    hipDeviceAttributeWarpSize = 87,
    hipDeviceAttributeMemoryPoolsSupported = 88,
    hipDeviceAttributeVirtualMemoryManagementSupported = 89,
    hipDeviceAttributeHostRegisterSupported = 90,
    hipDeviceAttributeCudaCompatibleEnd = 9999,
    hipDeviceAttributeAmdSpecificBegin = 10000,
    hipDeviceAttributeIsLargeBar = 10011,
    hipDeviceAttributeCanUseStreamWaitValue = 10013,
    hipDeviceAttributeImageSupport = 10014,
    hipDeviceAttributeFineGrainSupport = 10016,
    hipDeviceAttributeAmdSpecificEnd = 19999
} hipDeviceAttribute_t;

/* ---- Init and version -------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipInit(unsigned int flags);
HIPCPU_API_EXPORT hipError_t hipRuntimeGetVersion(int *runtimeVersion);
HIPCPU_API_EXPORT hipError_t hipDriverGetVersion(int *driverVersion);

/* ---- Errors -------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipGetLastError(void);
HIPCPU_API_EXPORT hipError_t hipPeekAtLastError(void);
HIPCPU_API_EXPORT const char *hipGetErrorString(hipError_t error);
HIPCPU_API_EXPORT const char *hipGetErrorName(hipError_t error);
/* The driver-API spellings (cuGetErrorName/cuGetErrorString after hipify): the same texts
 * through an out parameter; an unknown code gives hipErrorInvalidValue and *errorString NULL. */
HIPCPU_API_EXPORT hipError_t hipDrvGetErrorName(hipError_t hipError, const char **errorString);
HIPCPU_API_EXPORT hipError_t hipDrvGetErrorString(hipError_t hipError, const char **errorString);

/* ---- Devices ------------------------------------------------------------------------------ */
HIPCPU_API_EXPORT hipError_t hipGetDeviceCount(int *count);
HIPCPU_API_EXPORT hipError_t hipGetDevice(int *deviceId);
HIPCPU_API_EXPORT hipError_t hipSetDevice(int deviceId);
HIPCPU_API_EXPORT hipError_t hipDeviceSynchronize(void);
HIPCPU_API_EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId);
HIPCPU_API_EXPORT hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId);
HIPCPU_API_EXPORT hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device);
HIPCPU_API_EXPORT hipError_t hipMemGetInfo(size_t *free, size_t *total);

/* ---- Memory -------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipMalloc(void **ptr, size_t size);
HIPCPU_API_EXPORT hipError_t hipFree(void *ptr);
HIPCPU_API_EXPORT hipError_t hipMallocManaged(void **dev_ptr, size_t size,
                                              unsigned int flags HIPCPU_DPARM(hipMemAttachGlobal));
HIPCPU_API_EXPORT hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags);
HIPCPU_API_EXPORT hipError_t hipHostFree(void *ptr);
HIPCPU_API_EXPORT hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags);
HIPCPU_API_EXPORT hipError_t hipHostUnregister(void *hostPtr);
HIPCPU_API_EXPORT hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags);
/* hipMalloc with AMD's flags (hipDeviceMalloc*, hipMallocSignalMemory above). Signal memory must
 * be 8 bytes (else hipErrorInvalidValue) and is freed with hipFree. */
HIPCPU_API_EXPORT hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags);

/* ---- Copies -------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind);
HIPCPU_API_EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes,
                                            hipMemcpyKind kind, hipStream_t stream HIPCPU_DPARM(0));
/* height rows of width bytes, each pitch bytes after the one before on its side. */
HIPCPU_API_EXPORT hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                              size_t width, size_t height, hipMemcpyKind kind,
                                              hipStream_t stream HIPCPU_DPARM(0));
HIPCPU_API_EXPORT hipError_t hipMemset(void *dst, int value, size_t sizeBytes);
HIPCPU_API_EXPORT hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes,
                                            hipStream_t stream HIPCPU_DPARM(0));

/* ---- Queries ------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr);
HIPCPU_API_EXPORT hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr);
/* One attribute of the allocation or registered range containing ptr (interior pointers too):
 * device, managed, hipHostMalloc'ed and hipHostRegister'ed memory; the range of host memory is the
 * allocation or the registration. Memory the runtime does not know is hipErrorInvalidValue. */
HIPCPU_API_EXPORT hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr);

/* ---- Streams ------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipStreamCreate(hipStream_t *stream);
HIPCPU_API_EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags);
HIPCPU_API_EXPORT hipError_t hipStreamDestroy(hipStream_t stream);
HIPCPU_API_EXPORT hipError_t hipStreamSynchronize(hipStream_t stream);
HIPCPU_API_EXPORT hipError_t hipStreamQuery(hipStream_t stream);
HIPCPU_API_EXPORT hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event,
                                                unsigned int flags HIPCPU_DPARM(0));
HIPCPU_API_EXPORT hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
HIPCPU_API_EXPORT hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags);
HIPCPU_API_EXPORT hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData);
/* The stream waits until (*ptr & mask) satisfies `flags` against value: Gte (>=), Eq (==),
 * And (!= 0 after & value), Nor (~(*ptr | value) & mask != 0). ptr is pinned/registered host
 * memory (or its hipHostGetDevicePointer alias) or device memory. */
HIPCPU_API_EXPORT hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value,
                                                  unsigned int flags,
                                                  uint32_t mask HIPCPU_DPARM(0xFFFFFFFFu));
/* The same on a naturally aligned 64-bit word. */
HIPCPU_API_EXPORT hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value,
                                                  unsigned int flags,
                                                  uint64_t mask HIPCPU_DPARM(0xFFFFFFFFFFFFFFFFull));
/* When the stream reaches it, stores `value` to the 32/64-bit word (memory as for the waits),
 * with release order; flags must be 0. */
HIPCPU_API_EXPORT hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value,
                                                   unsigned int flags);
HIPCPU_API_EXPORT hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value,
                                                   unsigned int flags);

/* ---- Events -------------------------------------------------------------------------------- */
HIPCPU_API_EXPORT hipError_t hipEventCreate(hipEvent_t *event);
HIPCPU_API_EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags);
HIPCPU_API_EXPORT hipError_t hipEventDestroy(hipEvent_t event);
HIPCPU_API_EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream HIPCPU_DPARM(NULL));
HIPCPU_API_EXPORT hipError_t hipEventSynchronize(hipEvent_t event);
HIPCPU_API_EXPORT hipError_t hipEventQuery(hipEvent_t event);
HIPCPU_API_EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);

#ifdef __cplusplus
} /* extern "C" */

/* ROCm's C++ conveniences: typed pointers and the default flags, as in HIP's own header, so
 * that hipMalloc(&float_ptr, n) and hipHostMalloc(&p, n) compile unchanged. */
template <class T>
static inline hipError_t hipMalloc(T **devPtr, size_t size) {
    return hipMalloc(reinterpret_cast<void **>(devPtr), size);
}
template <class T>
static inline hipError_t hipHostMalloc(T **ptr, size_t size, unsigned int flags = hipHostMallocDefault) {
    return hipHostMalloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
static inline hipError_t hipMallocManaged(T **devPtr, size_t size, unsigned int flags = hipMemAttachGlobal) {
    return hipMallocManaged(reinterpret_cast<void **>(devPtr), size, flags);
}
template <class T>
static inline hipError_t hipExtMallocWithFlags(T **ptr, size_t sizeBytes, unsigned int flags) {
    return hipExtMallocWithFlags(reinterpret_cast<void **>(ptr), sizeBytes, flags);
}
template <class T>
static inline hipError_t hipHostGetDevicePointer(T **devPtr, void *hstPtr, unsigned int flags) {
    return hipHostGetDevicePointer(reinterpret_cast<void **>(devPtr), hstPtr, flags);
}
#endif

#endif /* HIPCPU_HIP_RUNTIME_API_H */
