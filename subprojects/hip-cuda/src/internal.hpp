// SPDX-License-Identifier: MIT
// hip-cuda internals: error conversion, last-error bookkeeping, driver entry points.
#pragma once

// The public declarations get default visibility; everything else in the library (and the
// statically linked cudart) stays hidden.
#pragma GCC visibility push(default)
#include <hip/hip_runtime_api.h>
#pragma GCC visibility pop

#include <cuda_runtime_api.h>

#if !defined(CUDART_VERSION) || CUDART_VERSION < 12000
#error "hip-cuda needs the CUDA 12 or newer runtime headers"
#endif

namespace hipcuda {

// CUDA runtime / driver error code (the two share numbers where both define one) to HIP.
hipError_t to_hip(int cuda_code) noexcept;
inline hipError_t to_hip(cudaError_t e) noexcept { return to_hip(static_cast<int>(e)); }

// Records e as this thread's last error (HIP semantics: hipSuccess and hipErrorNotReady leave
// it unchanged) and returns it.
hipError_t record(hipError_t e) noexcept;
inline hipError_t ret(cudaError_t e) noexcept { return record(to_hip(e)); }

// Forgets a CUDA error that an internal probe provoked, so that it cannot surface later
// through cudaGetLastError/hipGetLastError.
void drop_cuda_error() noexcept;

// Driver API functions fetched at run time through cudart (libcuda is never linked).
// Each returns a CUDA driver error code (CUresult, as int); "no driver / not found" comes back
// as the cudart error that explains it.
int drv_mem_get_address_range(void *ptr, void **base, size_t *size) noexcept;
// cuPointerGetAttribute; `attribute` is a CUpointer_attribute (HIP's numbering is the same).
int drv_pointer_get_attribute(void *data, int attribute, void *ptr) noexcept;
int drv_stream_get_device(cudaStream_t s, int *device) noexcept;
// cuStreamWaitValue32_v2 with a CU_STREAM_WAIT_VALUE_* condition.
int drv_stream_wait_value32(cudaStream_t s, void *ptr, unsigned value, unsigned cu_flags) noexcept;

inline cudaStream_t cu(hipStream_t s) noexcept { return reinterpret_cast<cudaStream_t>(s); }
inline cudaEvent_t cu(hipEvent_t e) noexcept { return reinterpret_cast<cudaEvent_t>(e); }

} // namespace hipcuda
