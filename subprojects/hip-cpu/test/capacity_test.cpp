// SPDX-License-Identifier: MIT
// Run with HIPCPU_DEVICE_MEMORY_MB=1: allocations beyond the capacity fail with out-of-memory.
#include "check.hpp"

TEST_CASE("device capacity comes from HIPCPU_DEVICE_MEMORY_MB", "[devices][capacity]") {
    size_t free = 0, total = 0;
    HIP_OK(hipMemGetInfo(&free, &total));
    CHECK(total == (1u << 20));
    CHECK(free == total);
    hipDeviceProp_t p;
    HIP_OK(hipGetDeviceProperties(&p, 0));
    CHECK(p.totalGlobalMem == (1u << 20));

    void *a = nullptr, *b = nullptr;
    HIP_OK(hipMalloc(&a, 1u << 20));
    HIP_OK(hipMemGetInfo(&free, &total));
    CHECK(free == 0);
    CHECK(hipMalloc(&b, 1) == hipErrorOutOfMemory);
    CHECK(hipGetLastError() == hipErrorOutOfMemory);
    HIP_OK(hipFree(a));
    HIP_OK(hipMemGetInfo(&free, &total));
    CHECK(free == total);
    CHECK(hipMalloc(&b, (1u << 20) + 1) == hipErrorOutOfMemory);
    HIP_OK(hipMalloc(&b, 1000));
    HIP_OK(hipFree(b));
    (void)hipGetLastError();
}
