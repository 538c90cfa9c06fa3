// SPDX-License-Identifier: MIT
// Compile-only: <hip/hip_runtime.h> is clean C++23 (built with -std=c++23 -pedantic-errors).
#include <hip/hip_runtime.h>
#include <hip/hip_runtime_api.h> // include guard

#include <type_traits>

static_assert(std::is_same_v<hipStream_t, ihipStream_t *>);
static_assert(std::is_same_v<hipEvent_t, ihipEvent_t *>);
static_assert(std::is_same_v<hipDevice_t, int>);
static_assert(std::is_same_v<hipDeviceptr_t, void *>);
static_assert(std::is_same_v<hipHostFn_t, void (*)(void *)>);
static_assert(HIP_VERSION_MAJOR == 6 && HIP_VERSION_MINOR == 2 && HIP_VERSION_PATCH == 0);
static_assert(hipMemcpyDefault == 4 && hipErrorOutOfMemory == hipErrorMemoryAllocation);

int hip_cuda_header_cxx_check(hipStream_t s) {
    int dev = -1;
    return hipStreamGetDevice(s, &dev) == hipSuccess ? dev : -1;
}
