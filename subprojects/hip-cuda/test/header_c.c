/* SPDX-License-Identifier: MIT */
/* Compile-only: <hip/hip_runtime.h> is clean C11 (built with -std=c11 -pedantic-errors). */
#include <hip/hip_runtime.h>

#ifndef __HIP_PLATFORM_NVIDIA__
#error "__HIP_PLATFORM_NVIDIA__ is not defined"
#endif
#if HIP_VERSION != 60200000
#error "HIP_VERSION is not 6.2.0"
#endif

_Static_assert(hipErrorInvalidValue == 1 && hipErrorNotFound == 500 && hipErrorUnknown == 999,
               "hipError_t values");
_Static_assert(hipMemoryTypeDevice == 2 && hipMemoryTypeUnified == 11, "hipMemoryType values");
_Static_assert(sizeof(hipStream_t) == sizeof(void *), "hipStream_t is a pointer");

int hip_cuda_header_c_check(const void *p);
int hip_cuda_header_c_check(const void *p) {
    hipPointerAttribute_t attr;
    hipDeviceProp_t prop;
    hipError_t e = hipPointerGetAttributes(&attr, p);
    (void)prop;
    return e == hipSuccess && attr.type == attr.memoryType && attr.type == hipMemoryTypeDevice;
}
