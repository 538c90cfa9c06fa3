// SPDX-License-Identifier: MIT
// hip-cuda API test. Without a usable NVIDIA device (no driver, no GPU) it prints why and exits
// 77, which Meson counts as SKIP. With one it exercises the HIP subset end to end.
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_failures = 0;

#define CHECK(cond)                                                                             \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
            ++g_failures;                                                                       \
        }                                                                                       \
    } while (0)

#define CHECK_HIP(expr) CHECK_HIP_IS(expr, hipSuccess)
#define CHECK_HIP_IS(expr, want)                                                                \
    do {                                                                                        \
        const hipError_t e_ = (expr);                                                           \
        if (e_ != (want)) {                                                                     \
            std::fprintf(stderr, "%s:%d: %s -> %s (%d), want %s\n", __FILE__, __LINE__, #expr,  \
                         hipGetErrorName(e_), static_cast<int>(e_), hipGetErrorName(want));     \
            ++g_failures;                                                                       \
        }                                                                                       \
    } while (0)

void test_errors() {
    CHECK(std::string(hipGetErrorName(hipSuccess)) == "hipSuccess");
    CHECK(std::string(hipGetErrorName(hipErrorInvalidValue)) == "hipErrorInvalidValue");
    CHECK(std::string(hipGetErrorName(hipErrorNotFound)) == "hipErrorNotFound");
    CHECK(std::string(hipGetErrorName(hipErrorMemoryAllocation)) == "hipErrorOutOfMemory");
    CHECK(std::string(hipGetErrorName(static_cast<hipError_t>(12345))) == "hipErrorUnknown");
    CHECK(std::strlen(hipGetErrorString(hipErrorNotReady)) > 0);
    CHECK(std::strlen(hipGetErrorString(static_cast<hipError_t>(12345))) > 0);

    // Argument checks that need no device, and the last error they leave.
    (void)hipGetLastError();
    CHECK_HIP_IS(hipMemcpy(nullptr, nullptr, 1, static_cast<hipMemcpyKind>(77)),
                 hipErrorInvalidMemcpyDirection);
    CHECK_HIP_IS(hipGetLastError(), hipErrorInvalidMemcpyDirection);
    CHECK_HIP(hipGetLastError());
}

void test_devices(int count) {
    // Last error: recorded, peeked, reset.
    (void)hipGetLastError();
    CHECK_HIP_IS(hipSetDevice(count + 1000), hipErrorInvalidDevice);
    CHECK_HIP_IS(hipPeekAtLastError(), hipErrorInvalidDevice);
    CHECK_HIP_IS(hipGetLastError(), hipErrorInvalidDevice);
    CHECK_HIP(hipGetLastError());

    int v = 0;
    CHECK_HIP(hipInit(0));
    CHECK_HIP_IS(hipInit(1), hipErrorInvalidValue);
    (void)hipGetLastError();
    CHECK_HIP(hipRuntimeGetVersion(&v));
    CHECK(v >= 12000);
    CHECK_HIP(hipDriverGetVersion(&v));
    CHECK(v >= 12000);
    for (int d = 0; d < count; ++d) {
        hipDeviceProp_t prop;
        CHECK_HIP(hipGetDeviceProperties(&prop, d));
        CHECK(prop.name[0] != '\0');
        CHECK(prop.totalGlobalMem > 0);
        CHECK(prop.major >= 5);
        CHECK(prop.multiProcessorCount > 0);
        CHECK(prop.unifiedAddressing == 1);
        char bus[64] = {};
        CHECK_HIP(hipDeviceGetPCIBusId(bus, sizeof bus, d));
        unsigned dom = 0, b = 0, dev = 0;
        CHECK(std::sscanf(bus, "%x:%x:%x", &dom, &b, &dev) == 3);
        CHECK(static_cast<int>(b) == prop.pciBusID && static_cast<int>(dev) == prop.pciDeviceID);
        std::printf("device %d: %s, cc %d.%d, %zu MiB, %s\n", d, prop.name, prop.major,
                    prop.minor, prop.totalGlobalMem >> 20, bus);
    }
    hipDeviceProp_t prop;
    CHECK_HIP_IS(hipGetDeviceProperties(&prop, count), hipErrorInvalidDevice);
    (void)hipGetLastError();
    CHECK_HIP(hipSetDevice(0));
    int cur = -1;
    CHECK_HIP(hipGetDevice(&cur));
    CHECK(cur == 0);
    size_t freeb = 0, total = 0;
    CHECK_HIP(hipMemGetInfo(&freeb, &total));
    CHECK(total > 0 && freeb <= total);
    CHECK_HIP(hipDeviceSynchronize());
}

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 131 + seed) & 0xff);
    return v;
}

void test_memcpy() {
    constexpr size_t n = (4u << 20) + 123;
    const auto src = pattern(n, 7);
    std::vector<unsigned char> back(n, 0);
    void *d1 = nullptr, *d2 = nullptr, *pinned = nullptr;
    CHECK_HIP(hipMalloc(&d1, n));
    CHECK_HIP(hipMalloc(&d2, n));
    CHECK_HIP(hipHostMalloc(&pinned, n, hipHostMallocDefault));
    if (!d1 || !d2 || !pinned) return;

    // Explicit kinds: H2D, D2D, D2H, H2H.
    CHECK_HIP(hipMemcpy(d1, src.data(), n, hipMemcpyHostToDevice));
    CHECK_HIP(hipMemcpy(d2, d1, n, hipMemcpyDeviceToDevice));
    CHECK_HIP(hipMemcpy(pinned, d2, n, hipMemcpyDeviceToHost));
    CHECK_HIP(hipMemcpy(back.data(), pinned, n, hipMemcpyHostToHost));
    CHECK(back == src);

    // hipMemcpyDefault infers every direction.
    const auto src2 = pattern(n, 99);
    std::fill(back.begin(), back.end(), 0);
    CHECK_HIP(hipMemcpy(d1, src2.data(), n, hipMemcpyDefault));
    CHECK_HIP(hipMemcpy(d2, d1, n, hipMemcpyDefault));
    CHECK_HIP(hipMemcpy(pinned, d2, n, hipMemcpyDefault));
    CHECK_HIP(hipMemcpy(back.data(), pinned, n, hipMemcpyDefault));
    CHECK(back == src2);

    // Async on a stream, plus memset.
    hipStream_t s = nullptr;
    CHECK_HIP(hipStreamCreate(&s));
    CHECK_HIP(hipMemsetAsync(d1, 0x5a, n, s));
    CHECK_HIP(hipMemcpyAsync(pinned, d1, n, hipMemcpyDeviceToHost, s));
    CHECK_HIP(hipStreamSynchronize(s));
    bool all = true;
    for (size_t i = 0; i < n; ++i) all = all && static_cast<unsigned char *>(pinned)[i] == 0x5a;
    CHECK(all);
    CHECK_HIP(hipMemset(d2, 0, n));
    CHECK_HIP(hipMemcpy(back.data(), d2, n, hipMemcpyDeviceToHost));
    CHECK(back == std::vector<unsigned char>(n, 0));
    CHECK_HIP(hipStreamDestroy(s));

    // Zero sizes and NULL frees succeed.
    void *z = reinterpret_cast<void *>(1);
    CHECK_HIP(hipMalloc(&z, 0));
    CHECK(z == nullptr);
    CHECK_HIP(hipFree(nullptr));
    CHECK_HIP(hipHostFree(nullptr));
    CHECK_HIP(hipMemcpy(d1, src.data(), 0, hipMemcpyHostToDevice));

    CHECK_HIP(hipFree(d1));
    CHECK_HIP(hipFree(d2));
    CHECK_HIP(hipHostFree(pinned));
}

void test_pointer_attributes() {
    constexpr size_t n = 1 << 20;
    hipPointerAttribute_t a;

    void *dev = nullptr;
    CHECK_HIP(hipMalloc(&dev, n));
    CHECK_HIP(hipPointerGetAttributes(&a, dev));
    CHECK(a.type == hipMemoryTypeDevice && a.device == 0 && a.devicePointer == dev);
    CHECK(a.hostPointer == nullptr && a.isManaged == 0);
    CHECK_HIP(hipPointerGetAttributes(&a, static_cast<char *>(dev) + 4096));
    CHECK(a.type == hipMemoryTypeDevice && a.devicePointer == static_cast<char *>(dev) + 4096);

    void *pinned = nullptr;
    CHECK_HIP(hipHostMalloc(&pinned, n, hipHostMallocMapped | hipHostMallocPortable));
    CHECK_HIP(hipPointerGetAttributes(&a, pinned));
    CHECK(a.type == hipMemoryTypeHost && a.hostPointer == pinned && a.devicePointer != nullptr);
    CHECK(a.isManaged == 0);
    CHECK((a.allocationFlags & hipHostMallocMapped) != 0);
    void *mapped = nullptr;
    CHECK_HIP(hipHostGetDevicePointer(&mapped, pinned, 0));
    CHECK(mapped == a.devicePointer);

    void *reg = std::aligned_alloc(4096, n);
    CHECK_HIP(hipHostRegister(reg, n, hipHostRegisterDefault));
    CHECK_HIP(hipPointerGetAttributes(&a, reg));
    CHECK(a.type == hipMemoryTypeHost && a.hostPointer == reg);
    CHECK_HIP_IS(hipHostRegister(reg, n, hipHostRegisterDefault),
                 hipErrorHostMemoryAlreadyRegistered);
    CHECK_HIP(hipHostUnregister(reg));
    CHECK_HIP_IS(hipHostUnregister(reg), hipErrorHostMemoryNotRegistered);
    CHECK_HIP(hipPointerGetAttributes(&a, reg));
    CHECK(a.type == hipMemoryTypeUnregistered);

    void *managed = nullptr;
    CHECK_HIP(hipMallocManaged(&managed, n, hipMemAttachGlobal));
    CHECK_HIP(hipPointerGetAttributes(&a, managed));
    CHECK(a.type == hipMemoryTypeManaged && a.isManaged == 1);
    if (managed) std::memset(managed, 3, n); // host-accessible

    int on_stack = 0;
    CHECK_HIP(hipPointerGetAttributes(&a, &on_stack));
    CHECK(a.type == hipMemoryTypeUnregistered && a.device == -1);
    CHECK(a.devicePointer == nullptr && a.hostPointer == nullptr);
    CHECK_HIP_IS(hipPointerGetAttributes(&a, nullptr), hipErrorInvalidValue);
    (void)hipGetLastError();

    // Address ranges: device and managed allocations, including interior pointers.
    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    CHECK_HIP(hipMemGetAddressRange(&base, &size, static_cast<char *>(dev) + 12345));
    CHECK(base == dev && size >= n);
    CHECK_HIP(hipMemGetAddressRange(&base, &size, dev));
    CHECK(base == dev && size >= n);
    CHECK_HIP(hipMemGetAddressRange(&base, &size, static_cast<char *>(managed) + n - 1));
    CHECK(base == managed && size >= n);
    CHECK_HIP_IS(hipMemGetAddressRange(&base, &size, &on_stack), hipErrorNotFound);
    CHECK_HIP_IS(hipMemGetAddressRange(&base, &size, pinned), hipErrorNotFound);
    (void)hipGetLastError();

    // The driver's pointer attributes give the range of pinned host memory too (hipfile bounds
    // unregistered pinned targets by it), and of device and managed memory.
    struct Span {
        void *ptr;
        void *base;
    };
    const Span spans[] = {{static_cast<char *>(pinned) + n - 1, pinned},
                          {static_cast<char *>(dev) + 100, dev},
                          {static_cast<char *>(managed) + 1, managed}};
    for (const Span &sp : spans) {
        void *start = nullptr;
        size_t bytes = 0;
        CHECK_HIP(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, sp.ptr));
        CHECK_HIP(hipPointerGetAttribute(&bytes, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, sp.ptr));
        CHECK(start == sp.base && bytes >= n);
    }
    unsigned type = 0;
    CHECK_HIP(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, pinned));
    CHECK(type == hipMemoryTypeHost);
    CHECK_HIP(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, managed));
    CHECK(type == hipMemoryTypeManaged);
    CHECK_HIP(hipHostRegister(reg, n, hipHostRegisterDefault));
    void *start = nullptr;
    size_t bytes = 0;
    CHECK_HIP(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, static_cast<char *>(reg) + 5));
    CHECK_HIP(hipPointerGetAttribute(&bytes, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, reg));
    CHECK(start == reg && bytes >= n);
    CHECK_HIP(hipHostUnregister(reg));
    CHECK_HIP_IS(hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, &on_stack),
                 hipErrorInvalidValue);
    (void)hipGetLastError();

    CHECK_HIP(hipFree(managed));
    std::free(reg);
    CHECK_HIP(hipHostFree(pinned));
    CHECK_HIP(hipFree(dev));
    CHECK_HIP(hipGetLastError());
}

struct Order {
    std::atomic<int> next{0};
    int seen[3] = {-1, -1, -1};
};

void test_streams_events() {
    hipStream_t s = nullptr, nb = nullptr;
    CHECK_HIP(hipStreamCreate(&s));
    CHECK_HIP(hipStreamCreateWithFlags(&nb, hipStreamNonBlocking));
    unsigned flags = 99;
    CHECK_HIP(hipStreamGetFlags(s, &flags));
    CHECK(flags == hipStreamDefault);
    CHECK_HIP(hipStreamGetFlags(nb, &flags));
    CHECK(flags == hipStreamNonBlocking);
    int dev = -1;
    CHECK_HIP(hipStreamGetDevice(s, &dev));
    CHECK(dev == 0);
    dev = -1;
    CHECK_HIP(hipStreamGetDevice(nullptr, &dev));
    CHECK(dev == 0);

    // Host functions run in stream order, after the copy enqueued before them.
    constexpr size_t n = 64u << 20;
    void *d = nullptr, *h = nullptr;
    CHECK_HIP(hipMalloc(&d, n));
    CHECK_HIP(hipHostMalloc(&h, n, 0));
    Order order;
    struct Call {
        Order *o;
        int id;
    } calls[3] = {{&order, 0}, {&order, 1}, {&order, 2}};
    auto fn = [](void *p) {
        auto *c = static_cast<Call *>(p);
        c->o->seen[c->o->next.fetch_add(1)] = c->id;
    };
    hipEvent_t start = nullptr, stop = nullptr, gate = nullptr;
    CHECK_HIP(hipEventCreate(&start));
    CHECK_HIP(hipEventCreate(&stop));
    CHECK_HIP(hipEventCreateWithFlags(&gate, hipEventDisableTiming));
    CHECK_HIP(hipEventRecord(start, s));
    CHECK_HIP(hipMemsetAsync(d, 1, n, s));
    CHECK_HIP(hipLaunchHostFunc(s, fn, &calls[0]));
    CHECK_HIP(hipMemcpyAsync(h, d, n, hipMemcpyDeviceToHost, s));
    CHECK_HIP(hipLaunchHostFunc(s, fn, &calls[1]));
    CHECK_HIP(hipEventRecord(stop, s));
    CHECK_HIP(hipEventRecord(gate, s));
    // nb waits for s through the event; its host function is therefore the third.
    CHECK_HIP(hipStreamWaitEvent(nb, gate, 0));
    CHECK_HIP(hipLaunchHostFunc(nb, fn, &calls[2]));
    CHECK_HIP(hipStreamSynchronize(nb));
    CHECK(order.next.load() == 3);
    CHECK(order.seen[0] == 0 && order.seen[1] == 1 && order.seen[2] == 2);
    CHECK_HIP(hipStreamQuery(s)); // the gate event completed, so did everything before it
    CHECK_HIP(hipEventSynchronize(stop));
    CHECK_HIP(hipEventQuery(stop));
    float ms = -1.0f;
    CHECK_HIP(hipEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0.0f);
    CHECK_HIP_IS(hipEventElapsedTime(&ms, start, gate), hipErrorInvalidHandle);
    (void)hipGetLastError();
    CHECK(static_cast<unsigned char *>(h)[n - 1] == 1);

    // hipStreamQuery / hipEventQuery report hipErrorNotReady while a host function blocks the
    // stream, and that is not a "last error".
    static std::atomic<bool> release{false};
    CHECK_HIP(hipLaunchHostFunc(
        s, [](void *) { while (!release.load()) {} }, nullptr));
    CHECK_HIP(hipEventRecord(stop, s));
    CHECK_HIP_IS(hipStreamQuery(s), hipErrorNotReady);
    CHECK_HIP_IS(hipEventQuery(stop), hipErrorNotReady);
    CHECK_HIP(hipPeekAtLastError());
    release = true;
    CHECK_HIP(hipStreamSynchronize(s));
    CHECK_HIP(hipEventQuery(stop));

    // The NULL stream works everywhere a stream is taken.
    CHECK_HIP(hipMemsetAsync(d, 2, 4096, nullptr));
    CHECK_HIP(hipLaunchHostFunc(nullptr, fn, &calls[0]));
    CHECK_HIP(hipStreamSynchronize(nullptr));
    CHECK(order.next.load() == 4);
    CHECK_HIP_IS(hipStreamDestroy(nullptr), hipErrorInvalidHandle);
    (void)hipGetLastError();

    CHECK_HIP(hipEventDestroy(start));
    CHECK_HIP(hipEventDestroy(stop));
    CHECK_HIP(hipEventDestroy(gate));
    CHECK_HIP(hipStreamDestroy(s));
    CHECK_HIP(hipStreamDestroy(nb));
    CHECK_HIP(hipFree(d));
    CHECK_HIP(hipHostFree(h));
}

void test_multi_device(int count) {
    if (count < 2) return;
    // Streams and allocations of device 1 report device 1 whichever device is current.
    CHECK_HIP(hipSetDevice(1));
    hipStream_t s = nullptr;
    void *d = nullptr;
    CHECK_HIP(hipStreamCreate(&s));
    CHECK_HIP(hipMalloc(&d, 1 << 20));
    CHECK_HIP(hipSetDevice(0));
    int dev = -1;
    CHECK_HIP(hipStreamGetDevice(s, &dev));
    CHECK(dev == 1);
    hipPointerAttribute_t a;
    CHECK_HIP(hipPointerGetAttributes(&a, d));
    CHECK(a.type == hipMemoryTypeDevice && a.device == 1);
    hipDeviceptr_t base = nullptr;
    size_t size = 0;
    CHECK_HIP(hipMemGetAddressRange(&base, &size, static_cast<char *>(d) + 100));
    CHECK(base == d && size >= (1u << 20));
    CHECK_HIP(hipStreamDestroy(s));
    CHECK_HIP(hipFree(d));
}

} // namespace

int main() {
    test_errors();
    int count = 0;
    const hipError_t e = hipGetDeviceCount(&count);
    if (e != hipSuccess || count == 0) {
        std::printf("SKIP: no usable NVIDIA device: hipGetDeviceCount -> %s (%s), count %d\n",
                    hipGetErrorName(e), hipGetErrorString(e), count);
        if (g_failures) std::printf("(but %d check(s) failed before that)\n", g_failures);
        return g_failures ? 1 : 77;
    }
    test_devices(count);
    test_memcpy();
    test_pointer_attributes();
    test_streams_events();
    test_multi_device(count);
    if (g_failures) {
        std::printf("FAIL: %d check(s) failed\n", g_failures);
        return 1;
    }
    std::printf("PASS: hip-cuda API test on %d device(s)\n", count);
    return 0;
}
