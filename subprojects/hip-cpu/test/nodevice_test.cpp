// SPDX-License-Identifier: MIT
// Run with HIPCPU_DEVICE_COUNT=0: every device API fails cleanly, as on a machine without a GPU.
#include "check.hpp"

TEST_CASE("no device", "[devices][none]") {
    int n = 5;
    CHECK(hipGetDeviceCount(&n) == hipErrorNoDevice);
    CHECK(n == 0);
    CHECK(hipInit(0) == hipErrorNoDevice);
    int d;
    CHECK(hipGetDevice(&d) == hipErrorNoDevice);
    CHECK(hipSetDevice(0) == hipErrorNoDevice);
    void *p = nullptr;
    CHECK(hipMalloc(&p, 16) == hipErrorNoDevice);
    CHECK(hipHostMalloc(&p, 16, 0) == hipErrorNoDevice);
    hipStream_t s;
    CHECK(hipStreamCreate(&s) == hipErrorNoDevice);
    hipEvent_t e;
    CHECK(hipEventCreate(&e) == hipErrorNoDevice);
    char a[4], b[4];
    CHECK(hipMemcpy(a, b, 4, hipMemcpyHostToHost) == hipErrorNoDevice);
    CHECK(hipDeviceSynchronize() == hipErrorNoDevice);
    CHECK(hipGetLastError() == hipErrorNoDevice);
    CHECK(std::string(hipGetErrorName(hipErrorNoDevice)) == "hipErrorNoDevice");
    int v = 0;
    HIP_OK(hipRuntimeGetVersion(&v));  // no device needed
}
