// SPDX-License-Identifier: MIT
// The calls hipified cuFile programs and upstream hipFile's async tests need: driver-API error
// names, ROCm's C++ overloads, device attributes, hipExtMallocWithFlags (fine-grained, signal
// memory), 64-bit stream waits and writes.
#include "check.hpp"

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

void mark(void *p) { static_cast<std::atomic<int> *>(p)->store(1); }

// Enqueues a 64-bit wait and a marker behind it; true when the marker ran only after `release`.
bool waits_for64(unsigned flags, std::uint64_t initial, std::uint64_t value, std::uint64_t release,
                 std::uint64_t mask = ~std::uint64_t{0}) {
    std::uint64_t *word = nullptr;
    HIP_OK(hipExtMallocWithFlags(&word, sizeof *word, hipMallocSignalMemory));
    std::atomic_ref<std::uint64_t>(*word).store(initial);
    hipStream_t s = nullptr;
    HIP_OK(hipStreamCreate(&s));
    std::atomic<int> ran{0};
    HIP_OK(hipStreamWaitValue64(s, word, value, flags, mask));
    HIP_OK(hipLaunchHostFunc(s, mark, &ran));
    std::this_thread::sleep_for(20ms);
    const bool held = ran.load() == 0 && hipStreamQuery(s) == hipErrorNotReady;
    std::atomic_ref<std::uint64_t>(*word).store(release);
    HIP_OK(hipStreamSynchronize(s));
    const bool done = ran.load() == 1;
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipFree(word));
    return held && done;
}

}  // namespace

TEST_CASE("hipDrvGetErrorName and hipDrvGetErrorString give HIP's texts", "[ext]") {
    const char *s = nullptr;
    HIP_OK(hipDrvGetErrorName(hipErrorInvalidValue, &s));
    CHECK(std::string(s) == "hipErrorInvalidValue");
    HIP_OK(hipDrvGetErrorString(hipErrorInvalidValue, &s));
    CHECK(std::string(s) == hipGetErrorString(hipErrorInvalidValue));
    HIP_OK(hipDrvGetErrorName(hipSuccess, &s));
    CHECK(std::string(s) == "hipSuccess");
    s = "untouched";
    CHECK(hipDrvGetErrorName(static_cast<hipError_t>(12345), &s) == hipErrorInvalidValue);
    CHECK(s == nullptr);
    CHECK(hipDrvGetErrorString(static_cast<hipError_t>(12345), &s) == hipErrorInvalidValue);
    CHECK(hipDrvGetErrorName(hipSuccess, nullptr) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("ROCm's C++ overloads take typed pointers and default flags", "[ext]") {
    float *f = nullptr;
    HIP_OK(hipHostMalloc(&f, 16 * sizeof(float)));  // default flags
    f[15] = 2.5f;
    hipPointerAttribute_t a{};
    HIP_OK(hipPointerGetAttributes(&a, f));
    CHECK(a.type == hipMemoryTypeHost);
    HIP_OK(hipHostFree(f));
    double *d = nullptr;
    HIP_OK(hipMalloc(&d, 8 * sizeof(double)));
    HIP_OK(hipPointerGetAttributes(&a, d));
    CHECK(a.type == hipMemoryTypeDevice);
    HIP_OK(hipFree(d));
    int *m = nullptr;
    HIP_OK(hipMallocManaged(&m, sizeof(int)));
    *m = 7;
    CHECK(*m == 7);
    HIP_OK(hipFree(m));
    void *v = nullptr;
    HIP_OK(hipHostMalloc(&v, 64));  // T = void: still the default flags
    HIP_OK(hipHostFree(v));
}

TEST_CASE("hipDeviceGetAttribute answers from the device's properties and hip-cpu's abilities", "[ext]") {
    int n = 0;
    HIP_OK(hipGetDeviceCount(&n));
    for (int dev = 0; dev < n; ++dev) {
        hipDeviceProp_t p{};
        HIP_OK(hipGetDeviceProperties(&p, dev));
        int v = -1;
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, dev));
        CHECK(v == 1);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, dev));
        CHECK(v == p.warpSize);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributePciBusId, dev));
        CHECK(v == p.pciBusID);
        CHECK(v == dev);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, dev));
        CHECK(v == p.multiProcessorCount);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeComputeCapabilityMajor, dev));
        CHECK(v == p.major);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeUnifiedAddressing, dev));
        CHECK(v == 1);
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeVirtualMemoryManagementSupported, dev));
        CHECK(v == 0);  // hip-cpu has no VMM calls: saying so is the truth
        HIP_OK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, dev));
        CHECK(v == p.maxThreadsPerBlock);
    }
    int v = 42;
    CHECK(hipDeviceGetAttribute(&v, static_cast<hipDeviceAttribute_t>(7), 0) == hipErrorInvalidValue);
    CHECK(v == 42);  // an attribute hip-cpu cannot answer truthfully is refused, not guessed
    CHECK(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0) == hipErrorInvalidValue);
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, n) == hipErrorInvalidDevice);
    CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, -1) == hipErrorInvalidDevice);
    (void)hipGetLastError();
}

TEST_CASE("hipExtMallocWithFlags: device, fine-grained and signal memory", "[ext]") {
    void *dev = nullptr;
    HIP_OK(hipExtMallocWithFlags(&dev, 4096, hipDeviceMallocDefault));
    hipPointerAttribute_t a{};
    HIP_OK(hipPointerGetAttributes(&a, dev));
    CHECK(a.type == hipMemoryTypeDevice);  // not host-addressable
    HIP_OK(hipFree(dev));

    unsigned char *fine = nullptr;
    HIP_OK(hipExtMallocWithFlags(&fine, 4096, hipDeviceMallocFinegrained));
    std::memset(fine, 0x3c, 4096);  // the host reaches fine-grained memory
    std::vector<unsigned char> back(4096);
    HIP_OK(hipMemcpy(back.data(), fine, 4096, hipMemcpyDeviceToHost));
    CHECK(back == std::vector<unsigned char>(4096, 0x3c));
    HIP_OK(hipFree(fine));

    std::uint64_t *signal = nullptr;
    HIP_OK(hipExtMallocWithFlags(&signal, 8, hipMallocSignalMemory));
    CHECK(*signal == 0);  // a signal starts at 0
    HIP_OK(hipFree(signal));
    void *p = reinterpret_cast<void *>(0x1);
    CHECK(hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory) == hipErrorInvalidValue);
    CHECK(hipExtMallocWithFlags(&p, 64, 0x40) == hipErrorInvalidValue);
    CHECK(hipExtMallocWithFlags(nullptr, 64, 0) == hipErrorInvalidValue);
    CHECK(p == reinterpret_cast<void *>(0x1));
    HIP_OK(hipExtMallocWithFlags(&p, 0, hipDeviceMallocDefault));
    CHECK(p == nullptr);
    (void)hipGetLastError();
}

TEST_CASE("hipStreamWaitValue64 compares all 64 bits under each condition", "[ext]") {
    constexpr std::uint64_t hi = std::uint64_t{1} << 40;
    CHECK(waits_for64(hipStreamWaitValueEq, 0, hi + 5, hi + 5));
    CHECK(waits_for64(hipStreamWaitValueGte, 5, hi, hi + 1));  // 5 >= 2^40 only with 32 bits
    CHECK(waits_for64(hipStreamWaitValueAnd, 1, hi, hi | 1));
    CHECK(waits_for64(hipStreamWaitValueEq, 0, hi, hi | 7, ~std::uint64_t{7}));  // masked
    CHECK(waits_for64(hipStreamWaitValueNor, ~std::uint64_t{0}, 0, ~hi));
}

TEST_CASE("hipStreamWriteValue64 on one stream releases a wait on another, in stream order", "[ext]") {
    std::uint64_t *signal = nullptr;
    HIP_OK(hipExtMallocWithFlags(&signal, 8, hipMallocSignalMemory));
    hipStream_t waiter = nullptr, writer = nullptr;
    HIP_OK(hipStreamCreate(&waiter));
    HIP_OK(hipStreamCreate(&writer));
    std::atomic<int> ran{0};
    HIP_OK(hipStreamWaitValue64(waiter, signal, 0x100000000ull, hipStreamWaitValueEq));
    HIP_OK(hipLaunchHostFunc(waiter, mark, &ran));
    std::this_thread::sleep_for(20ms);
    CHECK(ran.load() == 0);
    HIP_OK(hipStreamWriteValue64(writer, signal, 0x100000000ull, 0));
    HIP_OK(hipStreamSynchronize(waiter));
    CHECK(ran.load() == 1);
    CHECK(*signal == 0x100000000ull);
    std::uint32_t *word32 = reinterpret_cast<std::uint32_t *>(signal);
    HIP_OK(hipStreamWriteValue32(writer, word32, 9, 0));
    HIP_OK(hipStreamSynchronize(writer));
    CHECK(*word32 == 9);
    CHECK(hipStreamWriteValue64(writer, signal, 1, 1) == hipErrorInvalidValue);  // flags must be 0
    CHECK(hipStreamWaitValue64(writer, word32 + 1, 0, hipStreamWaitValueEq) == hipErrorInvalidValue);  // misaligned
    std::uint64_t pageable = 0;
    CHECK(hipStreamWaitValue64(writer, &pageable, 0, hipStreamWaitValueEq) == hipErrorInvalidValue);
    CHECK(hipStreamWriteValue64(writer, nullptr, 0, 0) == hipErrorInvalidValue);
    CHECK(hipStreamWaitValue64(writer, signal, 0, 9) == hipErrorInvalidValue);
    HIP_OK(hipStreamDestroy(waiter));
    HIP_OK(hipStreamDestroy(writer));
    HIP_OK(hipFree(signal));
    (void)hipGetLastError();
}

TEST_CASE("64-bit waits and writes on device memory go through the runtime's view", "[ext]") {
    std::uint64_t *dev = nullptr;
    HIP_OK(hipMalloc(&dev, 64));
    HIP_OK(hipMemset(dev, 0, 64));
    hipStream_t s = nullptr;
    HIP_OK(hipStreamCreate(&s));
    HIP_OK(hipStreamWriteValue64(s, dev + 3, 0xabcdef0123ull, 0));
    HIP_OK(hipStreamWaitValue64(s, dev + 3, 0xabcdef0123ull, hipStreamWaitValueEq));
    HIP_OK(hipStreamSynchronize(s));
    std::uint64_t back[8] = {};
    HIP_OK(hipMemcpy(back, dev, sizeof back, hipMemcpyDeviceToHost));
    CHECK(back[3] == 0xabcdef0123ull);
    CHECK(back[2] == 0);
    CHECK(hipStreamWriteValue64(s, dev + 8, 1, 0) == hipErrorInvalidValue);  // past the end
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipFree(dev));
    (void)hipGetLastError();
}
