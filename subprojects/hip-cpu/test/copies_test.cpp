// SPDX-License-Identifier: MIT
// hipMemcpy/hipMemset of every kind: bytes round-trip, out-of-allocation ranges are refused.
#include "check.hpp"

#include <cstring>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

namespace {
std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
    return v;
}
}  // namespace

TEST_CASE("explicit kinds round-trip bytes", "[copies]") {
    const std::size_t n = 10000;
    auto src = pattern(n, 7);
    std::vector<unsigned char> back(n, 0);
    void *d1 = nullptr, *d2 = nullptr;
    HIP_OK(hipMalloc(&d1, n));
    HIP_OK(hipMalloc(&d2, n));
    HIP_OK(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice));
    HIP_OK(hipMemcpy(d2, d1, n, hipMemcpyDeviceToDevice));
    HIP_OK(hipMemcpy(back.data(), d2, n, hipMemcpyDeviceToHost));
    CHECK(back == src);
    std::vector<unsigned char> hh(n, 0);
    HIP_OK(hipMemcpy(hh.data(), back.data(), n, hipMemcpyHostToHost));
    CHECK(hh == src);
    HIP_OK(hipFree(d1));
    HIP_OK(hipFree(d2));
}

TEST_CASE("hipMemcpyDefault infers every direction", "[copies]") {
    const std::size_t n = 4096 * 3 + 5;
    auto src = pattern(n, 3);
    std::vector<unsigned char> back(n, 0);
    void *d = nullptr, *h = nullptr, *m = nullptr;
    HIP_OK(hipMalloc(&d, n));
    HIP_OK(hipHostMalloc(&h, n, 0));
    HIP_OK(hipMallocManaged(&m, n, hipMemAttachGlobal));
    HIP_OK(hipMemcpy(d, src.data(), n, hipMemcpyDefault));
    HIP_OK(hipMemcpy(h, d, n, hipMemcpyDefault));
    CHECK(std::memcmp(h, src.data(), n) == 0);
    HIP_OK(hipMemcpy(m, h, n, hipMemcpyDefault));
    CHECK(std::memcmp(m, src.data(), n) == 0);
    HIP_OK(hipMemcpy(back.data(), m, n, hipMemcpyDefault));
    CHECK(back == src);
    HIP_OK(hipFree(d));
    HIP_OK(hipHostFree(h));
    HIP_OK(hipFree(m));
}

TEST_CASE("pinned, registered and managed memory in explicit kinds", "[copies]") {
    const std::size_t n = 5000;
    auto src = pattern(n, 11);
    void *d = nullptr, *h = nullptr, *m = nullptr;
    HIP_OK(hipMalloc(&d, n));
    HIP_OK(hipHostMalloc(&h, n, 0));
    HIP_OK(hipMallocManaged(&m, n, hipMemAttachGlobal));
    std::vector<unsigned char> reg(n, 0);
    HIP_OK(hipHostRegister(reg.data(), n, 0));

    std::memcpy(h, src.data(), n);
    HIP_OK(hipMemcpy(d, h, n, hipMemcpyHostToDevice));
    HIP_OK(hipMemcpy(reg.data(), d, n, hipMemcpyDeviceToHost));
    CHECK(reg == src);
    // Managed memory is valid on either side of any kind.
    HIP_OK(hipMemcpy(m, d, n, hipMemcpyDeviceToDevice));
    CHECK(std::memcmp(m, src.data(), n) == 0);
    HIP_OK(hipMemcpy(m, reg.data(), n, hipMemcpyHostToDevice));
    HIP_OK(hipMemcpy(h, m, n, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(h, src.data(), n) == 0);

    HIP_OK(hipHostUnregister(reg.data()));
    HIP_OK(hipFree(d));
    HIP_OK(hipFree(m));
    HIP_OK(hipHostFree(h));
}

TEST_CASE("interior device pointers copy at the right offset", "[copies]") {
    const std::size_t n = 1000;
    auto src = pattern(n, 1);
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), n));
    HIP_OK(hipMemset(d, 0, n));
    HIP_OK(hipMemcpy(d + 100, src.data(), 50, hipMemcpyHostToDevice));
    std::vector<unsigned char> back(n, 0xff);
    HIP_OK(hipMemcpy(back.data(), d, n, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(back.data() + 100, src.data(), 50) == 0);
    CHECK(back[99] == 0);
    CHECK(back[150] == 0);
    // Overlapping device-to-device copy inside one allocation behaves like memmove.
    HIP_OK(hipMemcpy(d + 110, d + 100, 50, hipMemcpyDeviceToDevice));
    HIP_OK(hipMemcpy(back.data(), d + 110, 50, hipMemcpyDeviceToHost));
    CHECK(std::memcmp(back.data(), src.data(), 50) == 0);
    HIP_OK(hipFree(d));
}

TEST_CASE("ranges that leave the allocation are refused and nothing is touched", "[copies]") {
    const std::size_t n = 100;
    char *d = nullptr, *d2 = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), n));
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d2), 4 * n));
    HIP_OK(hipMemset(d, 0x11, n));
    std::vector<unsigned char> host(4 * n, 0xee);

    CHECK(hipMemcpy(d, host.data(), n + 1, hipMemcpyHostToDevice) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d + 50, host.data(), 51, hipMemcpyHostToDevice) == hipErrorInvalidValue);
    CHECK(hipMemcpy(host.data(), d + 99, 2, hipMemcpyDeviceToHost) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d2, d, 2 * n, hipMemcpyDeviceToDevice) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d, d2, 2 * n, hipMemcpyDefault) == hipErrorInvalidValue);
    CHECK(hipMemcpyAsync(d, host.data(), n + 1, hipMemcpyHostToDevice, nullptr) == hipErrorInvalidValue);
    CHECK(hipMemset(d + 1, 0, n) == hipErrorInvalidValue);
    CHECK(hipMemsetAsync(d, 0, n + 1, nullptr) == hipErrorInvalidValue);
    HIP_OK(hipDeviceSynchronize());

    std::vector<unsigned char> back(n, 0);
    HIP_OK(hipMemcpy(back.data(), d, n, hipMemcpyDeviceToHost));
    CHECK(back == std::vector<unsigned char>(n, 0x11));
    HIP_OK(hipMemcpy(d + 99, host.data(), 1, hipMemcpyHostToDevice));  // the last byte is fine
    HIP_OK(hipFree(d));
    HIP_OK(hipFree(d2));
    (void)hipGetLastError();
}

TEST_CASE("explicit kinds are hints, as with unified addressing; pageable memory cannot be a device side", "[copies]") {
    void *d = nullptr, *h = nullptr, *d2 = nullptr;
    HIP_OK(hipMalloc(&d, 64));
    HIP_OK(hipMalloc(&d2, 64));
    HIP_OK(hipHostMalloc(&h, 64, 0));
    std::vector<unsigned char> host(64), back(64);
    for (int i = 0; i < 64; ++i) host[i] = static_cast<unsigned char>(i + 1);
    // What CUDA and ROCm accept: the copy follows the memory, whatever the kind says.
    HIP_OK(hipMemcpy(h, host.data(), 64, hipMemcpyHostToDevice));  // pinned memory as "device"
    std::memset(back.data(), 0, 64);
    HIP_OK(hipMemcpy(back.data(), h, 64, hipMemcpyDeviceToHost));  // hipified GDS samples do this
    CHECK(back == host);
    HIP_OK(hipMemcpy(d, h, 64, hipMemcpyHostToHost));  // device memory as "host": device to device
    std::memset(back.data(), 0, 64);
    HIP_OK(hipMemcpy(back.data(), d, 64, hipMemcpyHostToHost));
    CHECK(back == host);
    HIP_OK(hipMemcpy(d2, d, 64, hipMemcpyHostToDevice));
    std::memset(back.data(), 0, 64);
    HIP_OK(hipMemcpy(back.data(), d2, 64, hipMemcpyDeviceToHost));
    CHECK(back == host);
    // What a GPU cannot do: reach pageable memory named as its side of the copy.
    CHECK(hipMemcpy(host.data(), host.data() + 1, 8, hipMemcpyHostToDevice) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d, host.data(), 8, hipMemcpyDeviceToDevice) == hipErrorInvalidValue);
    CHECK(hipMemcpy(host.data(), back.data(), 8, hipMemcpyDeviceToHost) == hipErrorInvalidValue);
    CHECK(hipMemcpyAsync(d, back.data(), 8, hipMemcpyDeviceToDevice, nullptr) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d, host.data(), 8, static_cast<hipMemcpyKind>(9)) == hipErrorInvalidMemcpyDirection);
    CHECK(hipMemcpy(nullptr, host.data(), 8, hipMemcpyDefault) == hipErrorInvalidValue);
    CHECK(hipMemcpy(d, nullptr, 8, hipMemcpyDefault) == hipErrorInvalidValue);
    HIP_OK(hipMemcpy(nullptr, nullptr, 0, hipMemcpyDefault));  // zero bytes: nothing to check
    HIP_OK(hipFree(d));
    HIP_OK(hipFree(d2));
    HIP_OK(hipHostFree(h));
    (void)hipGetLastError();
}

TEST_CASE("hipMemset and hipMemsetAsync", "[copies]") {
    const std::size_t n = 3000;
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), n));
    HIP_OK(hipMemset(d, 0xab, n));
    HIP_OK(hipMemsetAsync(d + 1000, 0x01, 10, nullptr));
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    HIP_OK(hipMemsetAsync(d + 2000, 0x02, 10, s));
    HIP_OK(hipStreamSynchronize(s));
    HIP_OK(hipStreamDestroy(s));
    std::vector<unsigned char> back(n);
    HIP_OK(hipMemcpy(back.data(), d, n, hipMemcpyDeviceToHost));
    CHECK(back[0] == 0xab);
    CHECK(back[999] == 0xab);
    CHECK(back[1000] == 0x01);
    CHECK(back[1009] == 0x01);
    CHECK(back[1010] == 0xab);
    CHECK(back[2005] == 0x02);
    CHECK(back[n - 1] == 0xab);

    void *h = nullptr;
    HIP_OK(hipHostMalloc(&h, 100, 0));
    HIP_OK(hipMemset(h, 7, 100));  // pinned host memory is addressable by the device
    CHECK(static_cast<unsigned char *>(h)[99] == 7);
    HIP_OK(hipHostFree(h));
    std::vector<char> pageable(100);
    CHECK(hipMemset(pageable.data(), 0, 100) == hipErrorInvalidValue);
    CHECK(hipMemset(nullptr, 0, 100) == hipErrorInvalidValue);
    HIP_OK(hipFree(d));
    (void)hipGetLastError();
}

TEST_CASE("async copies to a bad stream handle", "[copies]") {
    std::vector<char> a(8), b(8);
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    HIP_OK(hipStreamDestroy(s));
    CHECK(hipMemcpyAsync(a.data(), b.data(), 8, hipMemcpyHostToHost, s) == hipErrorInvalidHandle);
    (void)hipGetLastError();
}

TEST_CASE("freeing memory waits for the copies queued before it", "[copies]") {
    // As CUDA's: hipFree synchronizes the device, so the queued copies have run when it returns.
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    static std::atomic<bool> go{false};
    HIP_OK(hipLaunchHostFunc(s, [](void *) { while (!go.load()) std::this_thread::yield(); }, nullptr));
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 4096));
    std::vector<unsigned char> src(4096, 9), dst(4096, 0);
    HIP_OK(hipMemcpyAsync(d, src.data(), 4096, hipMemcpyHostToDevice, s));
    HIP_OK(hipMemcpyAsync(dst.data(), d, 4096, hipMemcpyDeviceToHost, s));
    std::thread opener([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        go = true;
    });
    HIP_OK(hipFree(d));
    CHECK(dst == src);  // before any stream synchronization
    opener.join();
    HIP_OK(hipStreamDestroy(s));
}
