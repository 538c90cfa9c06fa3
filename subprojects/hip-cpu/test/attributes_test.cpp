// SPDX-License-Identifier: MIT
// hipPointerGetAttributes, hipPointerGetAttribute and hipMemGetAddressRange for every kind of memory.
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

namespace {

template <class T>
T attribute(hipPointer_attribute a, const void *p) {
    T v{};
    HIP_OK(hipPointerGetAttribute(&v, a, const_cast<void *>(p)));
    return v;
}

// The allocation (or registration) that hipPointerGetAttribute reports around `p`.
void check_range(const void *p, const void *base, size_t size) {
    CHECK(attribute<void *>(HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, p) == base);
    CHECK(attribute<size_t>(HIP_POINTER_ATTRIBUTE_RANGE_SIZE, p) == size);
}

}  // namespace

TEST_CASE("hipPointerGetAttribute gives every known allocation's range, host memory included", "[attributes]") {
    char *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), 5000));
    check_range(d + 4999, d, 5000);
    CHECK(attribute<unsigned>(HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, d) == hipMemoryTypeDevice);
    CHECK(attribute<int>(HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d) == 0);
    void *hp = nullptr;
    CHECK(hipPointerGetAttribute(&hp, HIP_POINTER_ATTRIBUTE_HOST_POINTER, d) == hipErrorInvalidValue);
    (void)hipGetLastError();

    char *m = nullptr;
    HIP_OK(hipMallocManaged(reinterpret_cast<void **>(&m), 77, hipMemAttachGlobal));
    check_range(m + 10, m, 77);
    CHECK(attribute<unsigned>(HIP_POINTER_ATTRIBUTE_IS_MANAGED, m) == 1u);
    CHECK(attribute<unsigned>(HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, m) == hipMemoryTypeManaged);

    char *h = nullptr;
    HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&h), 65536, 0));
    check_range(h, h, 65536);
    check_range(h + 65535, h, 65536);
    CHECK(attribute<unsigned>(HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, h + 1) == hipMemoryTypeHost);
    CHECK(attribute<void *>(HIP_POINTER_ATTRIBUTE_HOST_POINTER, h + 1) == h + 1);

    // A registration's range is what was registered, not the memory around it.
    std::vector<char> plain(3 * 4096);
    HIP_OK(hipHostRegister(plain.data() + 100, 5000, 0));
    check_range(plain.data() + 4000, plain.data() + 100, 5000);
    HIP_OK(hipHostUnregister(plain.data() + 100));

    // One past the end is not h's (another mapping may start right there, so it may be someone
    // else's; the trailing-guard test below checks it against memory nobody owns). Unknown
    // memory and a freed allocation: nothing to report.
    void *v = nullptr;
    if (hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, h + 65536) == hipSuccess) CHECK(v == h + 65536);
    CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, plain.data() + 200) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, nullptr) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttribute(nullptr, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, h) == hipErrorInvalidValue);
    CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_CONTEXT, h) == hipErrorInvalidValue);  // not answered
    CHECK(hipGetLastError() == hipErrorInvalidValue);
    HIP_OK(hipHostFree(h));
    CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, h) == hipErrorInvalidValue);
    HIP_OK(hipFree(m));
    HIP_OK(hipFree(d));
    (void)hipGetLastError();
}

TEST_CASE("A trailing guard follows later host-visible allocations and belongs to none", "[attributes]") {
    hipcpuSetTrailingGuard(8192);
    char *h = nullptr;
    char *m = nullptr;
    HIP_OK(hipHostMalloc(reinterpret_cast<void **>(&h), 65536, 0));
    HIP_OK(hipMallocManaged(reinterpret_cast<void **>(&m), 65536, hipMemAttachGlobal));
    hipcpuSetTrailingGuard(0);
    for (char *p : {h, m}) {
        std::memset(p + 65536, 0x5a, 8192);  // mapped, writable
        check_range(p + 65535, p, 65536);
        void *v = nullptr;
        CHECK(hipPointerGetAttribute(&v, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, p + 65536) == hipErrorInvalidValue);
        hipPointerAttribute_t a{};
        HIP_OK(hipPointerGetAttributes(&a, p + 65536 + 8191));
        CHECK(a.type == hipMemoryTypeUnregistered);
    }
    (void)hipGetLastError();
    HIP_OK(hipHostFree(h));
    HIP_OK(hipFree(m));
}
