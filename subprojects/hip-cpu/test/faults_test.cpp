// SPDX-License-Identifier: MIT
// The <hip/hip_cpu.h> test interface: fault injection and call counting.
#include "check.hpp"

#include <vector>

TEST_CASE("the nth call and count-1 after it fail, doing nothing", "[faults]") {
    hipcpuClearFaults();
    const std::size_t live = hipcpuLiveDeviceAllocations(0);
    hipcpuInjectFault("hipMalloc", 2, 2, hipErrorOutOfMemory);
    void *p[4] = {};
    HIP_OK(hipMalloc(&p[0], 64));
    void *untouched = reinterpret_cast<void *>(0x1234);
    p[1] = p[2] = untouched;
    CHECK(hipMalloc(&p[1], 64) == hipErrorOutOfMemory);
    CHECK(hipMalloc(&p[2], 64) == hipErrorOutOfMemory);
    CHECK(p[1] == untouched);
    CHECK(p[2] == untouched);
    CHECK(hipGetLastError() == hipErrorOutOfMemory);  // an injected failure is a failure
    HIP_OK(hipMalloc(&p[3], 64));
    CHECK(hipcpuLiveDeviceAllocations(0) == live + 2);
    HIP_OK(hipFree(p[0]));
    HIP_OK(hipFree(p[3]));
}

TEST_CASE("several faults at once, on different APIs", "[faults]") {
    hipcpuClearFaults();
    hipcpuInjectFault("hipHostMalloc", 1, 1, hipErrorOutOfMemory);
    hipcpuInjectFault("hipStreamCreateWithFlags", 1, 1, hipErrorUnknown);
    hipcpuInjectFault("hipPointerGetAttributes", 2, 1, hipErrorInvalidValue);
    void *h = nullptr;
    CHECK(hipHostMalloc(&h, 64, 0) == hipErrorOutOfMemory);
    HIP_OK(hipHostMalloc(&h, 64, 0));
    hipStream_t s;
    CHECK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking) == hipErrorUnknown);
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    hipPointerAttribute_t a;
    HIP_OK(hipPointerGetAttributes(&a, h));
    CHECK(hipPointerGetAttributes(&a, h) == hipErrorInvalidValue);
    HIP_OK(hipPointerGetAttributes(&a, h));
    HIP_OK(hipHostFree(h));
    HIP_OK(hipStreamDestroy(s));
    (void)hipGetLastError();
}

TEST_CASE("two faults on one API count independently", "[faults]") {
    hipcpuClearFaults();
    hipcpuInjectFault("hipMemset", 1, 1, hipErrorInvalidValue);
    hipcpuInjectFault("hipMemset", 3, 1, hipErrorUnknown);
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 16));
    CHECK(hipMemset(d, 0, 16) == hipErrorInvalidValue);
    HIP_OK(hipMemset(d, 0, 16));
    CHECK(hipMemset(d, 0, 16) == hipErrorUnknown);
    HIP_OK(hipMemset(d, 0, 16));
    HIP_OK(hipFree(d));
    (void)hipGetLastError();
}

TEST_CASE("a failed async copy enqueues nothing", "[faults]") {
    hipcpuClearFaults();
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    std::vector<unsigned char> src(32, 1), dst(32, 0);
    hipcpuInjectFault("hipMemcpyAsync", 1, 1, hipErrorIllegalAddress);
    CHECK(hipMemcpyAsync(dst.data(), src.data(), 32, hipMemcpyHostToHost, s) == hipErrorIllegalAddress);
    HIP_OK(hipStreamSynchronize(s));
    CHECK(dst[0] == 0);
    HIP_OK(hipMemcpyAsync(dst.data(), src.data(), 32, hipMemcpyHostToHost, s));
    HIP_OK(hipStreamSynchronize(s));
    CHECK(dst[0] == 1);
    HIP_OK(hipStreamDestroy(s));
    (void)hipGetLastError();
}

TEST_CASE("hipcpuClearFaults disarms everything", "[faults]") {
    hipcpuInjectFault("hipMalloc", 1, 100, hipErrorOutOfMemory);
    hipcpuInjectFault("hipFree", 1, 100, hipErrorUnknown);
    hipcpuClearFaults();
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 8));
    HIP_OK(hipFree(d));
}

TEST_CASE("call counts", "[faults][counts]") {
    hipcpuClearFaults();
    hipcpuResetCallCounts();
    CHECK(hipcpuCallCount("hipMalloc") == 0);
    CHECK(hipcpuCallCount("noSuchApi") == 0);
    CHECK(hipcpuCallCount(nullptr) == 0);
    void *d = nullptr;
    for (int i = 0; i < 3; ++i) {
        HIP_OK(hipMalloc(&d, 8));
        HIP_OK(hipFree(d));
    }
    CHECK(hipFree(reinterpret_cast<void *>(0x10)) == hipErrorInvalidValue);  // failures count too
    CHECK(hipcpuCallCount("hipMalloc") == 3);
    CHECK(hipcpuCallCount("hipFree") == 4);
    // hipStreamCreate is its own API, not a hipStreamCreateWithFlags call.
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    CHECK(hipcpuCallCount("hipStreamCreate") == 1);
    CHECK(hipcpuCallCount("hipStreamCreateWithFlags") == 0);
    HIP_OK(hipStreamDestroy(s));
    hipcpuResetCallCounts();
    CHECK(hipcpuCallCount("hipMalloc") == 0);
    CHECK(hipcpuCallCount("hipFree") == 0);
    (void)hipGetLastError();
}
