// SPDX-License-Identifier: MIT
// Allocation and registration: device, managed, pinned host, registered host.
#include "check.hpp"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

TEST_CASE("hipMalloc returns aligned device memory and hipFree releases it", "[memory]") {
    const std::size_t live = hipcpuLiveDeviceAllocations(0);
    size_t free0 = 0, total = 0;
    HIP_OK(hipMemGetInfo(&free0, &total));
    CHECK(total == std::size_t(32768) << 20);

    void *p = nullptr;
    HIP_OK(hipMalloc(&p, 1000));
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(p) % 256 == 0);
    CHECK(hipcpuLiveDeviceAllocations(0) == live + 1);
    CHECK(hipcpuDeviceOf(p) == 0);
    CHECK(hipcpuDeviceOf(static_cast<char *>(p) + 999) == 0);
    CHECK(hipcpuDeviceOf(static_cast<char *>(p) + 1000) == -1);
    size_t free1 = 0;
    HIP_OK(hipMemGetInfo(&free1, &total));
    CHECK(free1 < free0);

    HIP_OK(hipFree(p));
    CHECK(hipcpuLiveDeviceAllocations(0) == live);
    CHECK(hipcpuDeviceOf(p) == -1);
    HIP_OK(hipMemGetInfo(&free1, &total));
    CHECK(free1 == free0);
}

TEST_CASE("hipMalloc edge cases", "[memory]") {
    void *p = reinterpret_cast<void *>(0x1);
    HIP_OK(hipMalloc(&p, 0));  // HIP: success and a null pointer
    CHECK(p == nullptr);
    CHECK(hipMalloc(nullptr, 16) == hipErrorInvalidValue);
    HIP_OK(hipFree(nullptr));
    CHECK(hipFree(reinterpret_cast<void *>(0x1000)) == hipErrorInvalidValue);
    int stack = 0;
    CHECK(hipFree(&stack) == hipErrorInvalidValue);

    HIP_OK(hipMalloc(&p, 64));
    CHECK(hipFree(static_cast<char *>(p) + 8) == hipErrorInvalidValue);  // interior
    HIP_OK(hipFree(p));
    CHECK(hipFree(p) == hipErrorInvalidValue);  // double free
    CHECK(hipMalloc(&p, SIZE_MAX) == hipErrorOutOfMemory);
    (void)hipGetLastError();
}

TEST_CASE("hipHostMalloc gives CPU-accessible pinned memory", "[memory]") {
    const std::size_t live = hipcpuLiveHostAllocations();
    void *h = nullptr;
    HIP_OK(hipHostMalloc(&h, 10000, hipHostMallocDefault));
    REQUIRE(h != nullptr);
    std::memset(h, 0x5a, 10000);
    CHECK(static_cast<unsigned char *>(h)[9999] == 0x5a);
    CHECK(hipcpuLiveHostAllocations() == live + 1);
    CHECK(hipcpuDeviceOf(h) == -1);

    void *d = nullptr;
    HIP_OK(hipHostGetDevicePointer(&d, h, 0));
    CHECK(d == h);
    HIP_OK(hipHostGetDevicePointer(&d, static_cast<char *>(h) + 100, 0));
    CHECK(d == static_cast<char *>(h) + 100);

    CHECK(hipFree(h) == hipErrorInvalidValue);  // wrong release call
    HIP_OK(hipHostFree(h));
    CHECK(hipcpuLiveHostAllocations() == live);
    CHECK(hipHostFree(h) == hipErrorInvalidValue);
    HIP_OK(hipHostFree(nullptr));

    void *z = reinterpret_cast<void *>(0x1);
    HIP_OK(hipHostMalloc(&z, 0, 0));
    CHECK(z == nullptr);
    CHECK(hipHostMalloc(&z, 16, 0x100) == hipErrorInvalidValue);
    HIP_OK(hipHostMalloc(&z, 16, hipHostMallocMapped | hipHostMallocPortable | hipHostMallocWriteCombined));
    HIP_OK(hipHostFree(z));
    (void)hipGetLastError();
}

TEST_CASE("hipHostFree refuses device memory", "[memory]") {
    void *p = nullptr;
    HIP_OK(hipMalloc(&p, 64));
    CHECK(hipHostFree(p) == hipErrorInvalidValue);
    HIP_OK(hipFree(p));
    (void)hipGetLastError();
}

TEST_CASE("hipHostRegister tracks ranges", "[memory][register]") {
    std::vector<char> buf(1 << 16);
    char *b = buf.data();
    HIP_OK(hipHostRegister(b + 4096, 8192, hipHostRegisterDefault));

    SECTION("overlapping registrations are refused") {
        CHECK(hipHostRegister(b + 4096, 8192, 0) == hipErrorHostMemoryAlreadyRegistered);
        CHECK(hipHostRegister(b, 4097, 0) == hipErrorHostMemoryAlreadyRegistered);
        CHECK(hipHostRegister(b + 12287, 100, 0) == hipErrorHostMemoryAlreadyRegistered);
        CHECK(hipHostRegister(b + 5000, 10, 0) == hipErrorHostMemoryAlreadyRegistered);
        CHECK(hipHostRegister(b, 1 << 16, 0) == hipErrorHostMemoryAlreadyRegistered);
        // Adjacent ranges do not overlap.
        HIP_OK(hipHostRegister(b, 4096, 0));
        HIP_OK(hipHostRegister(b + 12288, 4096, 0));
        HIP_OK(hipHostUnregister(b));
        HIP_OK(hipHostUnregister(b + 12288));
    }
    SECTION("unregister needs the registered base") {
        CHECK(hipHostUnregister(b) == hipErrorHostMemoryNotRegistered);
        CHECK(hipHostUnregister(b + 5000) == hipErrorHostMemoryNotRegistered);
    }
    SECTION("device pointer of registered memory, interior too") {
        void *d = nullptr;
        HIP_OK(hipHostGetDevicePointer(&d, b + 5000, 0));
        CHECK(d == b + 5000);
        CHECK(hipHostGetDevicePointer(&d, b, 0) == hipErrorInvalidValue);
        CHECK(hipHostGetDevicePointer(&d, b + 5000, 1) == hipErrorInvalidValue);
        CHECK(hipHostGetDevicePointer(nullptr, b + 5000, 0) == hipErrorInvalidValue);
    }
    HIP_OK(hipHostUnregister(b + 4096));
    CHECK(hipHostUnregister(b + 4096) == hipErrorHostMemoryNotRegistered);
    HIP_OK(hipHostRegister(b + 4096, 8192, 0));  // may register again once released
    HIP_OK(hipHostUnregister(b + 4096));
    (void)hipGetLastError();
}

TEST_CASE("hipHostRegister argument errors", "[memory][register]") {
    char buf[64];
    CHECK(hipHostRegister(nullptr, 64, 0) == hipErrorInvalidValue);
    CHECK(hipHostRegister(buf, 0, 0) == hipErrorInvalidValue);
    CHECK(hipHostRegister(buf, 64, 0x100) == hipErrorInvalidValue);
    CHECK(hipHostUnregister(nullptr) == hipErrorInvalidValue);
    CHECK(hipHostUnregister(buf) == hipErrorHostMemoryNotRegistered);

    void *h = nullptr;
    HIP_OK(hipHostMalloc(&h, 4096, 0));
    CHECK(hipHostRegister(h, 4096, 0) == hipErrorHostMemoryAlreadyRegistered);
    HIP_OK(hipHostFree(h));
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 4096));
    CHECK(hipHostRegister(d, 4096, 0) == hipErrorInvalidValue);  // device memory is not host memory
    HIP_OK(hipFree(d));
    (void)hipGetLastError();
}

TEST_CASE("hipMallocManaged is CPU-accessible", "[memory]") {
    void *m = nullptr;
    HIP_OK(hipMallocManaged(&m, 5000, hipMemAttachGlobal));
    REQUIRE(m != nullptr);
    std::memset(m, 1, 5000);
    CHECK(hipcpuDeviceOf(m) == -1);
    CHECK(hipMallocManaged(&m, 16, 0) == hipErrorInvalidValue);
    CHECK(hipHostFree(m) == hipErrorInvalidValue);
    HIP_OK(hipFree(m));
    (void)hipGetLastError();
}

TEST_CASE("allocation is thread-safe", "[memory][threads]") {
    const std::size_t live = hipcpuLiveDeviceAllocations(0);
    std::vector<std::thread> ts;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                void *d = nullptr, *h = nullptr;
                if (hipMalloc(&d, 4096 + std::size_t(i)) != hipSuccess) ++failures;
                if (hipHostMalloc(&h, 100, 0) != hipSuccess) ++failures;
                hipPointerAttribute_t a;
                if (hipPointerGetAttributes(&a, d) != hipSuccess || a.type != hipMemoryTypeDevice) ++failures;
                if (hipFree(d) != hipSuccess) ++failures;
                if (hipHostFree(h) != hipSuccess) ++failures;
            }
        });
    for (auto &t : ts) t.join();
    CHECK(failures == 0);
    CHECK(hipcpuLiveDeviceAllocations(0) == live);
}

TEST_CASE("hipPointerGetAttribute answers per allocation, BUFFER_ID never reused", "[memory][attribute]") {
    void *d = nullptr, *h = nullptr, *m = nullptr;
    HIP_OK(hipMalloc(&d, 1 << 20));
    HIP_OK(hipHostMalloc(&h, 4096, hipHostMallocDefault));
    HIP_OK(hipMallocManaged(&m, 4096, hipMemAttachGlobal));
    unsigned long long id_d = 0, id_inner = 0, id_h = 0, id_m = 0;
    HIP_OK(hipPointerGetAttribute(&id_d, HIP_POINTER_ATTRIBUTE_BUFFER_ID, d));
    HIP_OK(hipPointerGetAttribute(&id_inner, HIP_POINTER_ATTRIBUTE_BUFFER_ID, static_cast<char *>(d) + 4097));
    HIP_OK(hipPointerGetAttribute(&id_h, HIP_POINTER_ATTRIBUTE_BUFFER_ID, h));
    HIP_OK(hipPointerGetAttribute(&id_m, HIP_POINTER_ATTRIBUTE_BUFFER_ID, m));
    CHECK(id_d != 0);
    CHECK(id_inner == id_d);  // one allocation, one id, whichever byte is asked about
    CHECK(id_h != id_d);
    CHECK(id_m != id_d);
    CHECK(id_m != id_h);

    unsigned type = 0;
    HIP_OK(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    CHECK(type == hipMemoryTypeDevice);
    HIP_OK(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, h));
    CHECK(type == hipMemoryTypeHost);
    int managed = -1, ordinal = -1;
    HIP_OK(hipPointerGetAttribute(&managed, HIP_POINTER_ATTRIBUTE_IS_MANAGED, m));
    CHECK(managed == 1);
    HIP_OK(hipPointerGetAttribute(&managed, HIP_POINTER_ATTRIBUTE_IS_MANAGED, d));
    CHECK(managed == 0);
    HIP_OK(hipPointerGetAttribute(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
    CHECK(ordinal == 0);
    void *start = nullptr, *host = reinterpret_cast<void *>(0x1);
    size_t size = 0;
    HIP_OK(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, static_cast<char *>(d) + 100));
    CHECK(start == d);
    HIP_OK(hipPointerGetAttribute(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, static_cast<char *>(d) + 100));
    CHECK(size == std::size_t(1) << 20);
    // Device memory has no host view: refused, as CUDA does.
    CHECK(hipPointerGetAttribute(&host, HIP_POINTER_ATTRIBUTE_HOST_POINTER, d) == hipErrorInvalidValue);

    // Freed and allocated again: GPU runtimes (and hip-cpu) hand the address out again at once;
    // the id tells the new allocation from the freed one.
    HIP_OK(hipFree(d));
    std::vector<void *> again;
    unsigned long long id_again = 0;
    for (int i = 0; i < 8; ++i) {
        void *p = nullptr;
        HIP_OK(hipMalloc(&p, 1 << 20));
        again.push_back(p);
        if (p == d) HIP_OK(hipPointerGetAttribute(&id_again, HIP_POINTER_ATTRIBUTE_BUFFER_ID, p));
    }
    for (void *p : again) {
        unsigned long long id = 0;
        HIP_OK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, p));
        CHECK(id != id_d);
        CHECK(id > id_m);  // increasing, so never one that was handed out before
        HIP_OK(hipFree(p));
    }
    if (id_again != 0) CHECK(id_again != id_d);
    HIP_OK(hipHostFree(h));
    HIP_OK(hipFree(m));
}

TEST_CASE("hipPointerGetAttribute argument errors", "[memory][attribute]") {
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 4096));
    unsigned long long id = 7;
    CHECK(hipPointerGetAttribute(nullptr, HIP_POINTER_ATTRIBUTE_BUFFER_ID, d) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, nullptr) == hipErrorInvalidValue);
    int stack = 0;
    CHECK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, &stack) == hipErrorInvalidValue);
    CHECK(id == 7);  // nothing written on failure
    // Attributes hip-cpu cannot answer truthfully are refused.
    CHECK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_P2P_TOKENS, d) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_CONTEXT, d) == hipErrorInvalidValue);
    HIP_OK(hipFree(d));
    CHECK(hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, d) == hipErrorInvalidValue);
    (void)hipGetLastError();
}
