// SPDX-License-Identifier: MIT
// Run with HIPCPU_DEVICE_COUNT=2 (see meson.build).
#include "check.hpp"

#include <latch>
#include <thread>
#include <vector>

TEST_CASE("two devices, current device per thread", "[devices][multi]") {
    int n = 0;
    HIP_OK(hipGetDeviceCount(&n));
    REQUIRE(n == 2);
    HIP_OK(hipSetDevice(1));
    int d = -1;
    HIP_OK(hipGetDevice(&d));
    CHECK(d == 1);
    int other = -1;
    std::thread([&] { (void)hipGetDevice(&other); }).join();
    CHECK(other == 0);  // a new thread starts on device 0
    HIP_OK(hipSetDevice(0));
    CHECK(hipSetDevice(2) == hipErrorInvalidDevice);
    (void)hipGetLastError();
}

TEST_CASE("allocations and streams record their device", "[devices][multi]") {
    HIP_OK(hipSetDevice(1));
    void *d1 = nullptr, *h1 = nullptr;
    HIP_OK(hipMalloc(&d1, 100));
    HIP_OK(hipHostMalloc(&h1, 100, 0));
    hipStream_t s1;
    HIP_OK(hipStreamCreate(&s1));
    HIP_OK(hipSetDevice(0));
    void *d0 = nullptr;
    HIP_OK(hipMalloc(&d0, 100));

    CHECK(hipcpuDeviceOf(d1) == 1);
    CHECK(hipcpuDeviceOf(d0) == 0);
    CHECK(hipcpuLiveDeviceAllocations(1) >= 1);
    hipPointerAttribute_t a;
    HIP_OK(hipPointerGetAttributes(&a, d1));
    CHECK(a.device == 1);
    HIP_OK(hipPointerGetAttributes(&a, h1));
    CHECK(a.device == 1);
    hipDevice_t sd = -1;
    HIP_OK(hipStreamGetDevice(s1, &sd));
    CHECK(sd == 1);
    HIP_OK(hipStreamGetDevice(nullptr, &sd));
    CHECK(sd == 0);

    // Unified addressing: copies between devices need no special call.
    std::vector<unsigned char> src(100, 3), dst(100, 0);
    HIP_OK(hipMemcpy(d1, src.data(), 100, hipMemcpyHostToDevice));
    HIP_OK(hipMemcpyAsync(d0, d1, 100, hipMemcpyDeviceToDevice, s1));
    HIP_OK(hipStreamSynchronize(s1));
    HIP_OK(hipMemcpy(dst.data(), d0, 100, hipMemcpyDeviceToHost));
    CHECK(dst == src);

    HIP_OK(hipStreamDestroy(s1));
    HIP_OK(hipFree(d0));
    HIP_OK(hipFree(d1));
    HIP_OK(hipHostFree(h1));
}

TEST_CASE("device properties per device", "[devices][multi]") {
    hipDeviceProp_t p;
    HIP_OK(hipGetDeviceProperties(&p, 1));
    CHECK(std::string(p.name) == "hip-cpu device 1");
    CHECK(p.pciBusID == 1);
    char bus[32];
    HIP_OK(hipDeviceGetPCIBusId(bus, sizeof bus, 1));
    CHECK(std::string(bus) == "0000:01:00.0");
}

TEST_CASE("device memory capacity is per device", "[devices][multi]") {
    size_t f0 = 0, f1 = 0, t = 0;
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipMemGetInfo(&f1, &t));
    HIP_OK(hipSetDevice(0));
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 1 << 20));
    HIP_OK(hipSetDevice(1));
    size_t f1b = 0;
    HIP_OK(hipMemGetInfo(&f1b, &t));
    CHECK(f1b == f1);  // device 0's allocation does not touch device 1
    HIP_OK(hipSetDevice(0));
    HIP_OK(hipMemGetInfo(&f0, &t));
    CHECK(f0 <= t - (1 << 20));
    HIP_OK(hipFree(d));
}

TEST_CASE("hipDeviceSynchronize covers only the current device", "[devices][multi]") {
    HIP_OK(hipSetDevice(1));
    hipStream_t s1;
    HIP_OK(hipStreamCreate(&s1));
    std::latch gate{1};
    HIP_OK(hipLaunchHostFunc(s1, [](void *g) { static_cast<std::latch *>(g)->wait(); }, &gate));
    HIP_OK(hipSetDevice(0));
    HIP_OK(hipDeviceSynchronize());  // must not wait for device 1's blocked stream
    // Device 1's legacy stream is independent of device 0's.
    HIP_OK(hipStreamSynchronize(nullptr));
    CHECK(hipStreamQuery(s1) == hipErrorNotReady);
    gate.count_down();
    HIP_OK(hipSetDevice(1));
    HIP_OK(hipDeviceSynchronize());
    HIP_OK(hipStreamQuery(s1));
    HIP_OK(hipStreamDestroy(s1));
    HIP_OK(hipSetDevice(0));
}
