// SPDX-License-Identifier: MIT
// Compiled as C11 with -Wpedantic: proves the installed headers are C-clean and usable from C.
#include <hip/hip_cpu.h>
#include <hip/hip_runtime.h>
#include <stdio.h>

#ifndef __HIP_PLATFORM_CPU__
#error "hip-cpu must define __HIP_PLATFORM_CPU__"
#endif

int main(void) {
    int n = 0;
    if (hipGetDeviceCount(&n) != hipSuccess || n < 1) return 1;
    void *d = NULL;
    if (hipMalloc(&d, 64) != hipSuccess) return 1;
    hipPointerAttribute_t a;
    if (hipPointerGetAttributes(&a, d) != hipSuccess || a.type != hipMemoryTypeDevice) return 1;
    if (hipcpuDeviceOf(d) != 0) return 1;
    if (hipFree(d) != hipSuccess) return 1;
    printf("%s\n", hipGetErrorName(hipErrorInvalidValue));
    return HIP_VERSION == 60200000 ? 0 : 1;
}
