// SPDX-License-Identifier: MIT
// CUDA driver API functions that the runtime API lacks, fetched at run time through cudart
// (which has loaded libcuda itself). libcuda is never linked: where the driver is missing the
// lookups fail and so do the calls, cleanly.
#include "internal.hpp"

#include <cstdint>

#include <cuda.h> // types and enumerators only; no cu* function is called by its link name

namespace hipcuda {
namespace {

// The driver ABI version whose function signatures the typedefs below describe.
constexpr unsigned kDriverAbi = 12000;

using PFN_memGetAddressRange = CUresult (*)(CUdeviceptr *, size_t *, CUdeviceptr);
using PFN_pointerGetAttribute = CUresult (*)(void *, CUpointer_attribute, CUdeviceptr);
using PFN_ctxPushCurrent = CUresult (*)(CUcontext);
using PFN_ctxPopCurrent = CUresult (*)(CUcontext *);
using PFN_streamGetCtx = CUresult (*)(CUstream, CUcontext *);
using PFN_ctxGetDevice = CUresult (*)(CUdevice *);
using PFN_streamWaitValue32 = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

struct Entry {
    void *fn = nullptr;
    int error = 0; // cudaError_t of the lookup when fn is null
};

Entry lookup(const char *symbol) noexcept {
    Entry entry;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    // cudaGetDriverEntryPoint is deprecated from CUDA 12.5 on (and may go away).
    cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &entry.fn, kDriverAbi,
                                                     cudaEnableDefault, &status);
#else
    cudaError_t e = cudaGetDriverEntryPoint(symbol, &entry.fn, cudaEnableDefault, &status);
#endif
    if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || entry.fn == nullptr) {
        if (e != cudaSuccess) drop_cuda_error();
        entry.fn = nullptr;
        entry.error = e != cudaSuccess ? static_cast<int>(e)
                                       : static_cast<int>(cudaErrorNotSupported);
    }
    return entry;
}

struct Driver {
    Entry memGetAddressRange = lookup("cuMemGetAddressRange");
    Entry pointerGetAttribute = lookup("cuPointerGetAttribute");
    Entry ctxPushCurrent = lookup("cuCtxPushCurrent");
    Entry ctxPopCurrent = lookup("cuCtxPopCurrent");
    Entry streamGetCtx = lookup("cuStreamGetCtx");
    Entry ctxGetDevice = lookup("cuCtxGetDevice");
    // The by-version lookup of "cuStreamWaitValue32" at ABI 12000 yields the _v2 entry point.
    Entry streamWaitValue32 = lookup("cuStreamWaitValue32");
};

const Driver &driver() noexcept {
    static const Driver d; // thread-safe, once; cudart is initialized by then (callers ran it)
    return d;
}

template <class F> F as(const Entry &e) noexcept { return reinterpret_cast<F>(e.fn); }

// Makes ctx current for the lifetime of the object (driver context stack; cudart's own
// per-thread device selection is untouched).
class ScopedContext {
public:
    explicit ScopedContext(CUcontext ctx) noexcept {
        const Driver &d = driver();
        if (ctx == nullptr || !d.ctxPushCurrent.fn || !d.ctxPopCurrent.fn) return;
        pushed_ = as<PFN_ctxPushCurrent>(d.ctxPushCurrent)(ctx) == CUDA_SUCCESS;
    }
    ~ScopedContext() {
        if (pushed_) {
            CUcontext popped = nullptr;
            (void)as<PFN_ctxPopCurrent>(driver().ctxPopCurrent)(&popped);
        }
    }
    ScopedContext(const ScopedContext &) = delete;
    ScopedContext &operator=(const ScopedContext &) = delete;

private:
    bool pushed_ = false;
};

} // namespace

int drv_mem_get_address_range(void *ptr, void **base, size_t *size) noexcept {
    const Driver &d = driver();
    if (!d.memGetAddressRange.fn) return d.memGetAddressRange.error;
    const auto dptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
    // Query under the context that owns the allocation, whichever device is current.
    CUcontext owner = nullptr;
    if (d.pointerGetAttribute.fn)
        (void)as<PFN_pointerGetAttribute>(d.pointerGetAttribute)(&owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                                                  dptr);
    ScopedContext scope(owner);
    CUdeviceptr b = 0;
    size_t s = 0;
    const CUresult r = as<PFN_memGetAddressRange>(d.memGetAddressRange)(&b, &s, dptr);
    if (r != CUDA_SUCCESS) return static_cast<int>(r);
    *base = reinterpret_cast<void *>(static_cast<uintptr_t>(b));
    *size = s;
    return 0;
}

int drv_pointer_get_attribute(void *data, int attribute, void *ptr) noexcept {
    static_assert(int{CU_POINTER_ATTRIBUTE_RANGE_START_ADDR} == int{HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR} &&
                  int{CU_POINTER_ATTRIBUTE_RANGE_SIZE} == int{HIP_POINTER_ATTRIBUTE_RANGE_SIZE} &&
                  int{CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL} == int{HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL} &&
                  int{CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE} == int{HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE});
    static_assert(sizeof(CUdeviceptr) == sizeof(void *));  // RANGE_START_ADDR's output
    const Driver &d = driver();
    if (!d.pointerGetAttribute.fn) return d.pointerGetAttribute.error;
    const auto dptr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
    return static_cast<int>(as<PFN_pointerGetAttribute>(d.pointerGetAttribute)(
        data, static_cast<CUpointer_attribute>(attribute), dptr));
}

int drv_stream_get_device(cudaStream_t s, int *device) noexcept {
    const Driver &d = driver();
    if (!d.streamGetCtx.fn) return d.streamGetCtx.error;
    if (!d.ctxGetDevice.fn) return d.ctxGetDevice.error;
    CUcontext ctx = nullptr;
    CUresult r = as<PFN_streamGetCtx>(d.streamGetCtx)(reinterpret_cast<CUstream>(s), &ctx);
    if (r != CUDA_SUCCESS) return static_cast<int>(r);
    if (!d.ctxPushCurrent.fn) return d.ctxPushCurrent.error;
    if (!d.ctxPopCurrent.fn) return d.ctxPopCurrent.error;
    r = as<PFN_ctxPushCurrent>(d.ctxPushCurrent)(ctx);
    if (r != CUDA_SUCCESS) return static_cast<int>(r);
    CUdevice dev = 0;
    r = as<PFN_ctxGetDevice>(d.ctxGetDevice)(&dev);
    CUcontext popped = nullptr;
    (void)as<PFN_ctxPopCurrent>(d.ctxPopCurrent)(&popped);
    if (r != CUDA_SUCCESS) return static_cast<int>(r);
    *device = static_cast<int>(dev); // driver and runtime ordinals coincide
    return 0;
}

int drv_stream_wait_value32(cudaStream_t s, void *ptr, unsigned value, unsigned cu_flags) noexcept {
    const Driver &d = driver();
    if (!d.streamWaitValue32.fn) return d.streamWaitValue32.error;
    static_assert(CU_STREAM_WAIT_VALUE_GEQ == 0 && CU_STREAM_WAIT_VALUE_EQ == 1 &&
                  CU_STREAM_WAIT_VALUE_AND == 2 && CU_STREAM_WAIT_VALUE_NOR == 3);
    const auto addr = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
    return static_cast<int>(as<PFN_streamWaitValue32>(d.streamWaitValue32)(
        reinterpret_cast<CUstream>(s), addr, static_cast<cuuint32_t>(value), cu_flags));
}

} // namespace hipcuda
