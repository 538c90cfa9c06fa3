// SPDX-License-Identifier: MIT
// hipPointerGetAttributes and hipMemGetAddressRange for every kind of memory.
#include "check.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
hipPointerAttribute_t attrs(const void *p) {
    hipPointerAttribute_t a;
    std::memset(&a, 0xcc, sizeof a);  // make sure every field is written
    REQUIRE(hipPointerGetAttributes(&a, p) == hipSuccess);
    return a;
}
}  // namespace

TEST_CASE("device memory attributes, interior pointers too", "[attributes]") {
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), 3000));
    for (char *p : {d, d + 1, d + 2999}) {
        auto a = attrs(p);
        CHECK(a.type == hipMemoryTypeDevice);
        CHECK(a.memoryType == hipMemoryTypeDevice);
        CHECK(a.device == 0);
        CHECK(a.devicePointer == p);
        CHECK(a.hostPointer == nullptr);
        CHECK(a.isManaged == 0);
        CHECK(a.allocationFlags == 0);
    }
    CHECK(attrs(d + 3000).type == hipMemoryTypeUnregistered);  // one past the end
    HIP_OK(hipFree(d));
    CHECK(attrs(d).type == hipMemoryTypeUnregistered);  // freed
}

TEST_CASE("pinned host attributes", "[attributes]") {
    char *h = nullptr;
    HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&h), 100, hipHostMallocMapped));
    auto a = attrs(h + 50);
    CHECK(a.type == hipMemoryTypeHost);
    CHECK(a.device == 0);
    CHECK(a.hostPointer == h + 50);
    CHECK(a.devicePointer == h + 50);
    CHECK(a.isManaged == 0);
    CHECK(a.allocationFlags == hipHostMallocMapped);
    HIP_OK(hipHostFree(h));
}

TEST_CASE("registered host attributes, interior too", "[attributes]") {
    std::vector<char> buf(8192);
    HIP_OK(hipHostRegister(buf.data() + 100, 1000, hipHostRegisterMapped));
    auto a = attrs(buf.data() + 600);
    CHECK(a.type == hipMemoryTypeHost);
    CHECK(a.hostPointer == buf.data() + 600);
    CHECK(a.devicePointer == buf.data() + 600);
    CHECK(a.device == 0);
    CHECK(a.allocationFlags == hipHostRegisterMapped);
    CHECK(attrs(buf.data() + 99).type == hipMemoryTypeUnregistered);
    CHECK(attrs(buf.data() + 1100).type == hipMemoryTypeUnregistered);
    HIP_OK(hipHostUnregister(buf.data() + 100));
    CHECK(attrs(buf.data() + 600).type == hipMemoryTypeUnregistered);
}

TEST_CASE("managed attributes", "[attributes]") {
    char *m = nullptr;
    HIP_OK(hipMallocManaged(reinterpret_cast<void **>(&m), 64, hipMemAttachGlobal));
    auto a = attrs(m + 10);
    CHECK(a.type == hipMemoryTypeManaged);
    CHECK(a.isManaged == 1);
    CHECK(a.device == 0);
    CHECK(a.devicePointer == m + 10);
    CHECK(a.hostPointer == m + 10);
    HIP_OK(hipFree(m));
}

TEST_CASE("unknown pointers are unregistered, not an error", "[attributes]") {
    int stack = 0;
    void *heap = std::malloc(32);
    for (const void *p : {static_cast<const void *>(&stack), static_cast<const void *>(heap)}) {
        auto a = attrs(p);
        CHECK(a.type == hipMemoryTypeUnregistered);
        CHECK(a.device == -1);
        CHECK(a.devicePointer == nullptr);
        CHECK(a.hostPointer == nullptr);
        CHECK(a.isManaged == 0);
    }
    std::free(heap);
}

TEST_CASE("attribute argument errors", "[attributes]") {
    hipPointerAttribute_t a;
    int x = 0;
    CHECK(hipPointerGetAttributes(nullptr, &x) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttributes(&a, nullptr) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("hipMemGetAddressRange", "[attributes]") {
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), 5000));
    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    HIP_OK(hipMemGetAddressRange(&base, &size, d + 4321));
    CHECK(base == d);
    CHECK(size == 5000);
    HIP_OK(hipMemGetAddressRange(&base, &size, d));
    CHECK(base == d);
    CHECK(hipMemGetAddressRange(&base, &size, d + 5000) == hipErrorNotFound);

    char *m = nullptr;
    HIP_OK(hipMallocManaged(reinterpret_cast<void **>(&m), 77, hipMemAttachGlobal));
    HIP_OK(hipMemGetAddressRange(&base, &size, m + 76));
    CHECK(base == m);
    CHECK(size == 77);

    void *h = nullptr;
    HIP_OK(hipHostMalloc(&h, 64, 0));
    CHECK(hipMemGetAddressRange(&base, &size, h) == hipErrorNotFound);
    int x = 0;
    CHECK(hipMemGetAddressRange(&base, &size, &x) == hipErrorNotFound);
    CHECK(hipMemGetAddressRange(&base, &size, nullptr) == hipErrorNotFound);

    HIP_OK(hipFree(d));
    CHECK(hipMemGetAddressRange(&base, &size, d) == hipErrorNotFound);
    HIP_OK(hipFree(m));
    HIP_OK(hipHostFree(h));
    (void)hipGetLastError();
}
