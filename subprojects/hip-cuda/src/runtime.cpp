// SPDX-License-Identifier: MIT
// The HIP runtime subset of HIP_SUBSET.md, each call mapped onto the CUDA runtime.
#include "internal.hpp"

#include <cstring>

using namespace hipcuda;

namespace {

bool valid_kind(hipMemcpyKind kind, cudaMemcpyKind *out) noexcept {
    switch (kind) {
    case hipMemcpyHostToHost: *out = cudaMemcpyHostToHost; return true;
    case hipMemcpyHostToDevice: *out = cudaMemcpyHostToDevice; return true;
    case hipMemcpyDeviceToHost: *out = cudaMemcpyDeviceToHost; return true;
    case hipMemcpyDeviceToDevice: *out = cudaMemcpyDeviceToDevice; return true;
    case hipMemcpyDefault: *out = cudaMemcpyDefault; return true;
    }
    return false;
}

// The application's NULL stream is the current device's legacy default stream, as in HIP.
bool is_default_stream(cudaStream_t s) noexcept {
    return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

hipError_t invalid(hipError_t e = hipErrorInvalidValue) noexcept { return record(e); }

} // namespace

extern "C" {

// --- Init and version --------------------------------------------------------------------------

hipError_t hipInit(unsigned int flags) {
    if (flags != 0) return invalid();
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return ret(e);
    if (count == 0) return invalid(hipErrorNoDevice);
    int dev = 0;
    e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return ret(e);
    // Initializes the current device's primary context (the cudaFree(0) idiom made explicit).
    return ret(cudaInitDevice(dev, 0, 0));
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion) {
    if (!runtimeVersion) return invalid();
    return ret(cudaRuntimeGetVersion(runtimeVersion));
}

hipError_t hipDriverGetVersion(int *driverVersion) {
    if (!driverVersion) return invalid();
    return ret(cudaDriverGetVersion(driverVersion));
}

// --- Devices -----------------------------------------------------------------------------------

hipError_t hipGetDeviceCount(int *count) {
    if (!count) return invalid();
    *count = 0;
    const cudaError_t e = cudaGetDeviceCount(count);
    if (e != cudaSuccess) {
        *count = 0;
        return ret(e);
    }
    return *count == 0 ? invalid(hipErrorNoDevice) : hipSuccess;
}

hipError_t hipGetDevice(int *deviceId) {
    if (!deviceId) return invalid();
    return ret(cudaGetDevice(deviceId));
}

hipError_t hipSetDevice(int deviceId) { return ret(cudaSetDevice(deviceId)); }

hipError_t hipDeviceSynchronize(void) { return ret(cudaDeviceSynchronize()); }

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId) {
    if (!prop) return invalid();
    cudaDeviceProp p;
    std::memset(&p, 0, sizeof p);
    const cudaError_t e = cudaGetDeviceProperties(&p, deviceId);
    if (e != cudaSuccess) return ret(e);
    std::memset(prop, 0, sizeof *prop);
    static_assert(sizeof prop->name == sizeof p.name);
    std::memcpy(prop->name, p.name, sizeof prop->name);
    prop->name[sizeof prop->name - 1] = '\0';
    prop->totalGlobalMem = p.totalGlobalMem;
    prop->major = p.major;
    prop->minor = p.minor;
    prop->multiProcessorCount = p.multiProcessorCount;
    prop->pciDomainID = p.pciDomainID;
    prop->pciBusID = p.pciBusID;
    prop->pciDeviceID = p.pciDeviceID;
    prop->canMapHostMemory = p.canMapHostMemory;
    prop->asyncEngineCount = p.asyncEngineCount;
    prop->unifiedAddressing = p.unifiedAddressing;
    prop->managedMemory = p.managedMemory;
    prop->sharedMemPerBlock = p.sharedMemPerBlock;
    prop->totalConstMem = p.totalConstMem;
    prop->warpSize = p.warpSize;
    prop->maxThreadsPerBlock = p.maxThreadsPerBlock;
    prop->memoryBusWidth = p.memoryBusWidth;
    prop->l2CacheSize = p.l2CacheSize;
    prop->integrated = p.integrated;
    prop->concurrentManagedAccess = p.concurrentManagedAccess;
    prop->pageableMemoryAccess = p.pageableMemoryAccess;
    prop->isMultiGpuBoard = p.isMultiGpuBoard;
    return hipSuccess;
}

hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    if (!pciBusId || len <= 0) return invalid();
    return ret(cudaDeviceGetPCIBusId(pciBusId, len, device));
}

hipError_t hipMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
    if (!freeBytes || !totalBytes) return invalid();
    return ret(cudaMemGetInfo(freeBytes, totalBytes));
}

// --- Memory ------------------------------------------------------------------------------------

hipError_t hipMalloc(void **ptr, size_t size) {
    if (!ptr) return invalid();
    *ptr = nullptr;
    if (size == 0) return hipSuccess; // HIP: a zero-size allocation succeeds with NULL
    return ret(cudaMalloc(ptr, size));
}

hipError_t hipFree(void *ptr) {
    if (!ptr) return hipSuccess; // no context initialization for free(NULL)
    return ret(cudaFree(ptr));
}

hipError_t hipMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    if (!devPtr) return invalid();
    *devPtr = nullptr;
    unsigned cuda_flags = 0;
    if (flags == hipMemAttachGlobal) cuda_flags = cudaMemAttachGlobal;
    else if (flags == hipMemAttachHost) cuda_flags = cudaMemAttachHost;
    else return invalid();
    if (size == 0) return invalid(); // HIP and CUDA agree: zero-size managed is invalid
    return ret(cudaMallocManaged(devPtr, size, cuda_flags));
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags) {
    if (!ptr) return invalid();
    *ptr = nullptr;
    // HIP's coherence / NUMA hints (0x40000000, 0x80000000, 0x20000000) mean nothing to CUDA
    // and are accepted and ignored, as HIP's own NVIDIA backend does.
    constexpr unsigned kIgnored = 0x20000000u | 0x40000000u | 0x80000000u;
    constexpr unsigned kKnown = hipHostMallocPortable | hipHostMallocMapped |
                                hipHostMallocWriteCombined | kIgnored;
    if (flags & ~kKnown) return invalid();
    unsigned cuda_flags = cudaHostAllocDefault;
    if (flags & hipHostMallocPortable) cuda_flags |= cudaHostAllocPortable;
    if (flags & hipHostMallocMapped) cuda_flags |= cudaHostAllocMapped;
    if (flags & hipHostMallocWriteCombined) cuda_flags |= cudaHostAllocWriteCombined;
    if (size == 0) return hipSuccess;
    return ret(cudaHostAlloc(ptr, size, cuda_flags));
}

hipError_t hipHostFree(void *ptr) {
    if (!ptr) return hipSuccess;
    return ret(cudaFreeHost(ptr));
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags) {
    if (!hostPtr || sizeBytes == 0) return invalid();
    // HIP's hipHostRegisterIoMemory (4) and hipHostRegisterReadOnly (8) have CUDA's numbers too.
    constexpr unsigned kIoMemory = 0x4u, kReadOnly = 0x8u;
    if (flags & ~(hipHostRegisterPortable | hipHostRegisterMapped | kIoMemory | kReadOnly))
        return invalid();
    unsigned cuda_flags = cudaHostRegisterDefault;
    if (flags & hipHostRegisterPortable) cuda_flags |= cudaHostRegisterPortable;
    if (flags & hipHostRegisterMapped) cuda_flags |= cudaHostRegisterMapped;
    if (flags & kIoMemory) cuda_flags |= cudaHostRegisterIoMemory;
    if (flags & kReadOnly) cuda_flags |= cudaHostRegisterReadOnly;
    return ret(cudaHostRegister(hostPtr, sizeBytes, cuda_flags));
}

hipError_t hipHostUnregister(void *hostPtr) {
    if (!hostPtr) return invalid();
    return ret(cudaHostUnregister(hostPtr));
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hostPtr, unsigned int flags) {
    if (!devPtr || !hostPtr || flags != 0) return invalid();
    *devPtr = nullptr;
    return ret(cudaHostGetDevicePointer(devPtr, hostPtr, 0));
}

// --- Copies ------------------------------------------------------------------------------------

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind) {
    cudaMemcpyKind k;
    if (!valid_kind(kind, &k)) return invalid(hipErrorInvalidMemcpyDirection);
    if (sizeBytes == 0) return hipSuccess;
    if (!dst || !src) return invalid();
    return ret(cudaMemcpy(dst, src, sizeBytes, k));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                          hipStream_t stream) {
    cudaMemcpyKind k;
    if (!valid_kind(kind, &k)) return invalid(hipErrorInvalidMemcpyDirection);
    if (sizeBytes == 0) return hipSuccess;
    if (!dst || !src) return invalid();
    return ret(cudaMemcpyAsync(dst, src, sizeBytes, k, cu(stream)));
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream) {
    cudaMemcpyKind k;
    if (!valid_kind(kind, &k)) return invalid(hipErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0) return hipSuccess;
    if (!dst || !src) return invalid();
    return ret(cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, k, cu(stream)));
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes) {
    if (sizeBytes == 0) return hipSuccess;
    if (!dst) return invalid();
    return ret(cudaMemset(dst, value, sizeBytes));
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream) {
    if (sizeBytes == 0) return hipSuccess;
    if (!dst) return invalid();
    return ret(cudaMemsetAsync(dst, value, sizeBytes, cu(stream)));
}

// --- Queries -----------------------------------------------------------------------------------

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr) {
    if (!attributes || !ptr) return invalid();
    cudaPointerAttributes a;
    std::memset(&a, 0, sizeof a);
    const cudaError_t e = cudaPointerGetAttributes(&a, ptr);
    if (e != cudaSuccess) return ret(e);
    std::memset(attributes, 0, sizeof *attributes);
    switch (a.type) {
    case cudaMemoryTypeHost: attributes->type = hipMemoryTypeHost; break;
    case cudaMemoryTypeDevice: attributes->type = hipMemoryTypeDevice; break;
    case cudaMemoryTypeManaged: attributes->type = hipMemoryTypeManaged; break;
    case cudaMemoryTypeUnregistered:
    default:
        attributes->type = hipMemoryTypeUnregistered;
        attributes->device = -1;
        return hipSuccess; // pointers stay NULL: nothing is known about this memory
    }
    attributes->device = a.device;
    attributes->devicePointer = a.devicePointer;
    attributes->hostPointer = a.hostPointer;
    attributes->isManaged = a.type == cudaMemoryTypeManaged ? 1 : 0;
    if (a.type == cudaMemoryTypeHost) {
        // The flags of a hipHostMalloc allocation; registered memory has none to report (cudart
        // refuses the query for it, and that refusal must not become anybody's last error).
        unsigned flags = 0;
        if (cudaHostGetFlags(&flags, const_cast<void *>(ptr)) == cudaSuccess)
            attributes->allocationFlags = flags;
        else
            drop_cuda_error();
    }
    return hipSuccess;
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr) {
    if (!pbase || !psize || !dptr) return invalid();
    cudaPointerAttributes a;
    std::memset(&a, 0, sizeof a);
    cudaError_t e = cudaPointerGetAttributes(&a, dptr);
    if (e == cudaErrorInvalidValue) {
        drop_cuda_error();
        return invalid(hipErrorNotFound);
    }
    if (e != cudaSuccess) return ret(e);
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return invalid(hipErrorNotFound);
    const int r = drv_mem_get_address_range(dptr, pbase, psize);
    return r == 0 ? hipSuccess : record(to_hip(r));
}

hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr) {
    if (!data) return invalid();
    if (attribute == HIP_POINTER_ATTRIBUTE_MEMORY_TYPE) {
        // The driver answers a CUmemorytype (managed memory is "device"); HIP's enum says more.
        hipPointerAttribute_t a;
        const hipError_t e = hipPointerGetAttributes(&a, ptr);
        if (e != hipSuccess) return e;
        if (a.type == hipMemoryTypeUnregistered) return invalid();
        *static_cast<unsigned *>(data) = static_cast<unsigned>(a.type);
        return hipSuccess;
    }
    const int r = drv_pointer_get_attribute(data, static_cast<int>(attribute), ptr);
    return r == 0 ? hipSuccess : record(to_hip(r));
}

// --- Streams -----------------------------------------------------------------------------------

hipError_t hipStreamCreate(hipStream_t *stream) {
    return hipStreamCreateWithFlags(stream, hipStreamDefault);
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags) {
    if (!stream) return invalid();
    unsigned cuda_flags;
    if (flags == hipStreamDefault) cuda_flags = cudaStreamDefault;
    else if (flags == hipStreamNonBlocking) cuda_flags = cudaStreamNonBlocking;
    else return invalid();
    cudaStream_t s = nullptr;
    const cudaError_t e = cudaStreamCreateWithFlags(&s, cuda_flags);
    if (e != cudaSuccess) return ret(e);
    *stream = reinterpret_cast<hipStream_t>(s);
    return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
    if (is_default_stream(cu(stream))) return invalid(hipErrorInvalidHandle);
    return ret(cudaStreamDestroy(cu(stream)));
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
    return ret(cudaStreamSynchronize(cu(stream)));
}

hipError_t hipStreamQuery(hipStream_t stream) { return ret(cudaStreamQuery(cu(stream))); }

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
    if (!event || flags != 0) return invalid(event ? hipErrorInvalidValue : hipErrorInvalidHandle);
    return ret(cudaStreamWaitEvent(cu(stream), cu(event), 0));
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device) {
    if (!device) return invalid();
    const cudaStream_t s = cu(stream);
    if (is_default_stream(s)) return ret(cudaGetDevice(device));
#if CUDART_VERSION >= 12080 && !defined(HIP_CUDA_TEST_DRIVER_PATH) // the macro: tests only
    const cudaError_t e = cudaStreamGetDevice(s, device);
    if (e != cudaErrorCallRequiresNewerDriver) return ret(e);
    drop_cuda_error(); // a driver older than the runtime: ask the driver API instead
#endif
    int dev = 0;
    const int r = drv_stream_get_device(s, &dev);
    if (r != 0) return record(to_hip(r));
    *device = dev;
    return hipSuccess;
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags) {
    if (!flags) return invalid();
    unsigned f = 0;
    const cudaError_t e = cudaStreamGetFlags(cu(stream), &f);
    if (e != cudaSuccess) return ret(e);
    *flags = (f & cudaStreamNonBlocking) ? hipStreamNonBlocking : hipStreamDefault;
    return hipSuccess;
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData) {
    if (!fn) return invalid();
    return ret(cudaLaunchHostFunc(cu(stream), fn, userData));
}

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask) {
    if (!ptr || flags > hipStreamWaitValueNor) return invalid();
    // The driver has no mask: Gte/Eq need the full word; And/Nor take the mask into the value.
    unsigned cu_flags = 0;
    switch (flags) {
    case hipStreamWaitValueGte:
        if (mask != 0xFFFFFFFFu) return invalid();
        cu_flags = 0; // CU_STREAM_WAIT_VALUE_GEQ
        break;
    case hipStreamWaitValueEq:
        if (mask != 0xFFFFFFFFu) return invalid();
        cu_flags = 1; // CU_STREAM_WAIT_VALUE_EQ
        break;
    case hipStreamWaitValueAnd:
        value &= mask;
        cu_flags = 2; // CU_STREAM_WAIT_VALUE_AND
        break;
    default:
        if (mask != 0xFFFFFFFFu) return invalid();
        cu_flags = 3; // CU_STREAM_WAIT_VALUE_NOR
        break;
    }
    const int r = drv_stream_wait_value32(cu(stream), ptr, value, cu_flags);
    return r == 0 ? hipSuccess : record(to_hip(r));
}

// --- Events ------------------------------------------------------------------------------------

hipError_t hipEventCreate(hipEvent_t *event) {
    return hipEventCreateWithFlags(event, hipEventDefault);
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned int flags) {
    if (!event) return invalid();
    // hipEventInterprocess (4) has CUDA's number too (and, as in CUDA, needs DisableTiming).
    constexpr unsigned kInterprocess = 0x4u;
    if (flags & ~(hipEventBlockingSync | hipEventDisableTiming | kInterprocess)) return invalid();
    unsigned cuda_flags = cudaEventDefault;
    if (flags & hipEventBlockingSync) cuda_flags |= cudaEventBlockingSync;
    if (flags & hipEventDisableTiming) cuda_flags |= cudaEventDisableTiming;
    if (flags & kInterprocess) cuda_flags |= cudaEventInterprocess;
    cudaEvent_t ev = nullptr;
    const cudaError_t e = cudaEventCreateWithFlags(&ev, cuda_flags);
    if (e != cudaSuccess) return ret(e);
    *event = reinterpret_cast<hipEvent_t>(ev);
    return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event) {
    if (!event) return invalid(hipErrorInvalidHandle);
    return ret(cudaEventDestroy(cu(event)));
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
    if (!event) return invalid(hipErrorInvalidHandle);
    return ret(cudaEventRecord(cu(event), cu(stream)));
}

hipError_t hipEventSynchronize(hipEvent_t event) {
    if (!event) return invalid(hipErrorInvalidHandle);
    return ret(cudaEventSynchronize(cu(event)));
}

hipError_t hipEventQuery(hipEvent_t event) {
    if (!event) return invalid(hipErrorInvalidHandle);
    return ret(cudaEventQuery(cu(event)));
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop) {
    if (!ms) return invalid();
    if (!start || !stop) return invalid(hipErrorInvalidHandle);
    return ret(cudaEventElapsedTime(ms, cu(start), cu(stop)));
}

} // extern "C"
