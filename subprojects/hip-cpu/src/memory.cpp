// SPDX-License-Identifier: MIT
// Device, managed, pinned and registered memory; the address map behind every pointer query.
//
// A device allocation is a memfd mapped twice: the address hipMalloc returns is a PROT_NONE view
// (so a CPU dereference faults, as a stray host access to GPU memory would), and a second,
// read-write view of the same pages is where the runtime carries out copies and memsets.
#include "internal.hpp"

#include <hip/hip_cpu.h>

#include <pthread.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <algorithm>
#include <map>
#include <shared_mutex>

namespace hipcpu {
namespace {

constexpr int kMaxDevices = 16;

struct Registry {
    std::shared_mutex m;
    // Keyed by base address; ranges never overlap, so the entry with the greatest base <= p is
    // the only candidate to contain p.
    std::map<std::uintptr_t, AllocationRef> by_base;
    std::array<std::size_t, kMaxDevices> live_device{};  // hipMalloc'ed, not yet hipFree'd
    std::size_t live_host = 0;                           // pinned host memory (pinned_host), live
    std::size_t live_host_bytes = 0;                     // their sizes
    std::size_t peak_host_bytes = 0;                     // the most live_host_bytes has been
    std::atomic<bool> forked{false};                     // this is a child of fork() that has not looked yet
};

void forget_parents_registrations(Registry &r);

// Leaked on purpose: worker threads may drop the last reference to an allocation at exit. A
// child of fork() is told by a flag its fork handler sets (nothing there may take a lock), and
// forgets its parent's registrations at its first use of the registry.
Registry &registry() {
    static Registry *r = [] {
        auto *made = new Registry;
        (void)pthread_atfork(nullptr, nullptr, [] { registry().forked.store(true, std::memory_order_relaxed); });
        return made;
    }();
    if (r->forked.load(std::memory_order_relaxed)) forget_parents_registrations(*r);
    return *r;
}

// Bytes charged against each device's capacity. Released when the pages are actually unmapped
// (which, with queued work still holding the allocation, may be after hipFree returns).
std::array<std::atomic<std::size_t>, kMaxDevices> used_bytes{};

std::size_t page_round(std::size_t n) {
    static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    return (n + page - 1) / page * page;
}

AllocationRef find_locked(Registry &r, std::uintptr_t a) {
    auto it = r.by_base.upper_bound(a);
    if (it == r.by_base.begin()) return nullptr;
    --it;
    const Allocation &al = *it->second;
    return a - al.base < al.size ? it->second : nullptr;
}

// True if [a, a+n) intersects any known range; the first such allocation goes to *hit.
bool overlaps_locked(Registry &r, std::uintptr_t a, std::size_t n, AllocationRef *hit) {
    auto it = r.by_base.lower_bound(a + n);  // first entry starting at or past the end
    while (it != r.by_base.begin()) {
        --it;
        const Allocation &al = *it->second;
        if (al.base + al.size > a) {
            *hit = it->second;
            return true;
        }
        // Entries are disjoint and sorted, so once one ends at or before a, all earlier do too.
        return false;
    }
    return false;
}

// Pinned host memory the program holds: hipHostMalloc'ed, or registered other than read-only
// (a read-only registration pins pages of a file mapping for a while, not memory of its own).
bool pinned_host(const Allocation &al) {
    return al.kind == MemKind::PinnedHost || (al.kind == MemKind::RegisteredHost && (al.flags & 0x8u) == 0);
}

void count_in_locked(Registry &r, const Allocation &al) {
    if (al.kind == MemKind::Device) ++r.live_device[std::size_t(al.device)];
    if (pinned_host(al)) {
        ++r.live_host;
        r.live_host_bytes += al.size;
        r.peak_host_bytes = std::max(r.peak_host_bytes, r.live_host_bytes);
    }
}

void count_out_locked(Registry &r, const Allocation &al) {
    if (al.kind == MemKind::Device) --r.live_device[std::size_t(al.device)];
    if (pinned_host(al)) {
        --r.live_host;
        r.live_host_bytes -= al.size;
    }
}

// In a child of fork(), at its first use of the registry: the parent's hipHostRegister ranges are
// forgotten. The child does not inherit memory the parent marked MADV_DONTFORK, and the kernel
// may hand those addresses out again, to a registration or an allocation of the child's; a real
// runtime's state does not survive fork at all.
void forget_parents_registrations(Registry &r) {
    std::unique_lock g(r.m);
    if (!r.forked.exchange(false)) return;  // another thread of the child forgot them first
    const pid_t me = getpid();
    for (auto it = r.by_base.begin(); it != r.by_base.end();) {
        if (it->second->kind == MemKind::RegisteredHost && it->second->owner != me) {
            count_out_locked(r, *it->second);
            it = r.by_base.erase(it);
        } else {
            ++it;
        }
    }
}

void insert(const AllocationRef &al) {
    Registry &r = registry();
    std::unique_lock g(r.m);
    r.by_base.emplace(al->base, al);
    count_in_locked(r, *al);
}

// Remove the allocation that starts exactly at p and is of kind k. Null if there is none.
AllocationRef remove(const void *p, MemKind k) {
    Registry &r = registry();
    std::unique_lock g(r.m);
    auto it = r.by_base.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == r.by_base.end() || it->second->kind != k) return nullptr;
    AllocationRef al = std::move(it->second);
    r.by_base.erase(it);
    count_out_locked(r, *al);
    return al;
}

// Copies n bytes; false (no signal) when a source page cannot be read, e.g. past a file's end.
bool copy_without_faults(void *dst, const void *src, std::size_t n) {
    // process_vm_readv on this process reports an unreadable page as EFAULT instead of a signal.
    std::size_t done = 0;
    while (done < n) {
        iovec local{static_cast<unsigned char *>(dst) + done, n - done};
        iovec remote{static_cast<unsigned char *>(const_cast<void *>(src)) + done, n - done};
        ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (got <= 0) return false;
        done += static_cast<std::size_t>(got);
    }
    return true;
}

// Bytes of read-write memory mapped after each later pinned host or managed allocation, outside
// it (hipcpuSetTrailingGuard): where a test sees whether anything wrote past an allocation's end.
std::atomic<std::size_t> trailing_guard{0};

// Bytes to map for a host-visible allocation of `size`, its trailing guard included; 0 if that
// does not fit in a size_t.
std::size_t host_visible_bytes(std::size_t size) {
    const std::size_t guard = trailing_guard.load();
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));  // page_round adds up to page - 1
    if (guard > SIZE_MAX - page || size > SIZE_MAX - page - guard) return 0;
    return page_round(size + guard);
}

// Anonymous read-write pages for memory the CPU may touch (pinned host, managed).
unsigned char *map_anonymous(std::size_t bytes) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? nullptr : static_cast<unsigned char *>(p);
}

}  // namespace

unsigned long long next_allocation_id() noexcept {
    static std::atomic<unsigned long long> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
}

Allocation::~Allocation() {
    switch (kind) {
    case MemKind::Device:
        munmap(reinterpret_cast<void *>(base), mapped);
        munmap(rw, mapped);
        used_bytes[std::size_t(device)].fetch_sub(mapped);
        break;
    case MemKind::Managed:
    case MemKind::PinnedHost:
        munmap(rw, mapped);
        break;
    case MemKind::RegisteredHost:
        if (mapped != 0) munmap(rw, mapped);  // a ReadOnly registration's pinned copy
        break;  // otherwise the application's memory
    }
}

AllocationRef find_allocation(const void *p) {
    if (p == nullptr) return nullptr;
    Registry &r = registry();
    std::shared_lock g(r.m);
    return find_locked(r, reinterpret_cast<std::uintptr_t>(p));
}

}  // namespace hipcpu

using hipcpu::Allocation;
using hipcpu::AllocationRef;
using hipcpu::MemKind;
using hipcpu::ret;

namespace {

hipError_t check_devices() {
    return hipcpu::device_count() == 0 ? hipErrorNoDevice : hipSuccess;
}

// Device memory (hipMalloc, hipExtMallocWithFlags' default): ptr checked, size > 0.
hipError_t device_alloc(void **ptr, size_t size) {
    const int dev = hipcpu::current_device();
    const std::size_t bytes = hipcpu::page_round(size);
    if (bytes < size) return ret(hipErrorOutOfMemory);  // size near SIZE_MAX wrapped
    // Charge the capacity first, atomically, so concurrent allocations cannot overshoot it.
    auto &used = hipcpu::used_bytes[std::size_t(dev)];
    const std::size_t cap = hipcpu::device_capacity();
    std::size_t cur = used.load();
    do {
        if (bytes > cap || cur > cap - bytes) return ret(hipErrorOutOfMemory);
    } while (!used.compare_exchange_weak(cur, cur + bytes));

    int fd = memfd_create("hip-cpu-device-memory", MFD_CLOEXEC);
    void *dview = MAP_FAILED;
    void *rview = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, off_t(bytes)) == 0) {
        dview = mmap(nullptr, bytes, PROT_NONE, MAP_SHARED, fd, 0);
        rview = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (fd >= 0) close(fd);  // the mappings keep the memory alive
    if (dview == MAP_FAILED || rview == MAP_FAILED) {
        if (dview != MAP_FAILED) munmap(dview, bytes);
        if (rview != MAP_FAILED) munmap(rview, bytes);
        used.fetch_sub(bytes);
        return ret(hipErrorOutOfMemory);
    }
    auto al = std::make_shared<Allocation>(MemKind::Device, dev, reinterpret_cast<std::uintptr_t>(dview),
                                           size, bytes, 0u, static_cast<unsigned char *>(rview));
    hipcpu::insert(al);
    *ptr = dview;
    return hipSuccess;
}

// Memory the device and the host both address (managed memory): hipMallocManaged and the
// fine-grained and signal kinds of hipExtMallocWithFlags. ptr checked, size > 0. Zeroed.
hipError_t host_visible_alloc(void **ptr, size_t size, unsigned flags) {
    const std::size_t bytes = hipcpu::host_visible_bytes(size);
    unsigned char *p = bytes == 0 ? nullptr : hipcpu::map_anonymous(bytes);
    if (p == nullptr) return ret(hipErrorOutOfMemory);
    hipcpu::insert(std::make_shared<Allocation>(MemKind::Managed, hipcpu::current_device(),
                                                reinterpret_cast<std::uintptr_t>(p), size, bytes, flags, p));
    *ptr = p;
    return hipSuccess;
}

}  // namespace

extern "C" {

hipError_t hipMalloc(void **ptr, size_t size) {
    HIPCPU_ENTER();
    if (ptr == nullptr) return ret(hipErrorInvalidValue);
    if (hipError_t e = check_devices()) return ret(e);
    // HIP answers a zero-byte request with success and a null pointer.
    if (size == 0) {
        *ptr = nullptr;
        return hipSuccess;
    }
    return device_alloc(ptr, size);
}

hipError_t hipExtMallocWithFlags(void **ptr, size_t sizeBytes, unsigned int flags) {
    HIPCPU_ENTER();
    if (ptr == nullptr) return ret(hipErrorInvalidValue);
    if (flags > hipDeviceMallocUncached) return ret(hipErrorInvalidValue);
    // A signal is one 64-bit word, as ROCm requires.
    if (flags == hipMallocSignalMemory && sizeBytes != 8) return ret(hipErrorInvalidValue);
    if (hipError_t e = check_devices()) return ret(e);
    if (sizeBytes == 0) {
        *ptr = nullptr;
        return hipSuccess;
    }
    if (flags == hipDeviceMallocDefault) return device_alloc(ptr, sizeBytes);
    return host_visible_alloc(ptr, sizeBytes, flags);
}

hipError_t hipFree(void *ptr) {
    HIPCPU_ENTER();
    if (ptr == nullptr) return hipSuccess;
    hipcpu::FreeUnderContextLock drained;
    // hipFree releases device and managed memory, and only by the allocation's base address.
    AllocationRef al = hipcpu::remove(ptr, MemKind::Device);
    if (!al) al = hipcpu::remove(ptr, MemKind::Managed);
    if (!al) return ret(hipErrorInvalidValue);
    // Dropping the reference unmaps now, or when the last queued operation using it completes.
    return hipSuccess;
}

hipError_t hipMallocManaged(void **dev_ptr, size_t size, unsigned int flags) {
    HIPCPU_ENTER();
    if (dev_ptr == nullptr) return ret(hipErrorInvalidValue);
    if (flags != hipMemAttachGlobal && flags != hipMemAttachHost) return ret(hipErrorInvalidValue);
    if (hipError_t e = check_devices()) return ret(e);
    if (size == 0) {
        *dev_ptr = nullptr;
        return hipSuccess;
    }
    return host_visible_alloc(dev_ptr, size, flags);
}

hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags) {
    HIPCPU_ENTER();
    if (ptr == nullptr) return ret(hipErrorInvalidValue);
    // The contract's flags plus HIP's coherence/NUMA bits, which change nothing on a CPU.
    constexpr unsigned kKnown = hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined |
                                0x20000000u | 0x40000000u | 0x80000000u;
    if ((flags & ~kKnown) != 0) return ret(hipErrorInvalidValue);
    if (hipError_t e = check_devices()) return ret(e);
    if (size == 0) {
        *ptr = nullptr;
        return hipSuccess;
    }
    const std::size_t bytes = hipcpu::host_visible_bytes(size);
    unsigned char *p = bytes == 0 ? nullptr : hipcpu::map_anonymous(bytes);
    if (p == nullptr) return ret(hipErrorOutOfMemory);
    hipcpu::insert(std::make_shared<Allocation>(MemKind::PinnedHost, hipcpu::current_device(),
                                                reinterpret_cast<std::uintptr_t>(p), size, bytes, flags, p));
    *ptr = p;
    return hipSuccess;
}

hipError_t hipHostFree(void *ptr) {
    HIPCPU_ENTER();
    if (ptr == nullptr) return hipSuccess;
    hipcpu::FreeUnderContextLock drained;
    if (!hipcpu::remove(ptr, MemKind::PinnedHost)) return ret(hipErrorInvalidValue);
    return hipSuccess;
}

hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags) {
    HIPCPU_ENTER();
    if (hostPtr == nullptr || sizeBytes == 0) return ret(hipErrorInvalidValue);
    // Default/Portable/Mapped plus HIP's IoMemory (4) and ReadOnly (8).
    if ((flags & ~0xFu) != 0) return ret(hipErrorInvalidValue);
    if (flags & 0x8u) {
        // Counted and faulted apart too, as "hipHostRegister.ReadOnly": tests tell pins of
        // page-cache pages from registrations of memory the program allocated.
        static ::hipcpu::ApiSlot &read_only = ::hipcpu::api_slot("hipHostRegister.ReadOnly");
        if (hipError_t injected = ::hipcpu::api_enter(read_only); injected != hipSuccess) return ret(injected);
    }
    if (hipError_t e = check_devices()) return ret(e);
    const auto a = reinterpret_cast<std::uintptr_t>(hostPtr);
    if (a + sizeBytes < a) return ret(hipErrorInvalidValue);
    auto &r = hipcpu::registry();
    std::unique_lock g(r.m);
    AllocationRef hit;
    if (hipcpu::overlaps_locked(r, a, sizeBytes, &hit)) {
        // Host memory HIP already knows is "already registered"; device memory is not host memory.
        bool host = hit->kind == MemKind::PinnedHost || hit->kind == MemKind::RegisteredHost;
        return ret(host ? hipErrorHostMemoryAlreadyRegistered : hipErrorInvalidValue);
    }
    // ReadOnly (8): what the device later reads are the pages pinned now. A pin holds the
    // physical pages, so a file that shrinks afterwards cannot fault the copy; a CPU copy through
    // the mapping would (SIGBUS). The runtime keeps a private copy of the pinned bytes instead,
    // taken without touching the mapping directly: pages that cannot be pinned (past a file's
    // end) make the registration fail, as a real pin does.
    unsigned char *view = static_cast<unsigned char *>(hostPtr);
    std::size_t snapshot = 0;
    if (flags & 0x8u) {
        snapshot = hipcpu::page_round(sizeBytes);
        view = hipcpu::map_anonymous(snapshot);
        if (view == nullptr) return ret(hipErrorOutOfMemory);
        if (!hipcpu::copy_without_faults(view, hostPtr, sizeBytes)) {
            munmap(view, snapshot);
            return ret(hipErrorInvalidValue);
        }
    }
    auto registered = std::make_shared<Allocation>(MemKind::RegisteredHost, hipcpu::current_device(), a, sizeBytes,
                                                   snapshot, flags, view);
    r.by_base.emplace(a, registered);
    hipcpu::count_in_locked(r, *registered);
    return hipSuccess;
}

hipError_t hipHostUnregister(void *hostPtr) {
    HIPCPU_ENTER();
    if (hostPtr == nullptr) return ret(hipErrorInvalidValue);
    if (!hipcpu::remove(hostPtr, MemKind::RegisteredHost)) return ret(hipErrorHostMemoryNotRegistered);
    return hipSuccess;
}

hipError_t hipHostGetDevicePointer(void **devPtr, void *hstPtr, unsigned int flags) {
    HIPCPU_ENTER();
    if (devPtr == nullptr || hstPtr == nullptr || flags != 0) return ret(hipErrorInvalidValue);
    AllocationRef al = hipcpu::find_allocation(hstPtr);
    if (!al || (al->kind != MemKind::PinnedHost && al->kind != MemKind::RegisteredHost))
        return ret(hipErrorInvalidValue);
    // Host memory is mapped at the same address for the "device" (unified addressing).
    *devPtr = hstPtr;
    return hipSuccess;
}

hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr) {
    HIPCPU_ENTER();
    if (attributes == nullptr || ptr == nullptr) return ret(hipErrorInvalidValue);
    hipPointerAttribute_t a{};
    AllocationRef al = hipcpu::find_allocation(ptr);
    void *p = const_cast<void *>(ptr);
    if (!al) {
        // CUDA >= 11 and ROCm 6: memory the runtime does not know is a success, "unregistered".
        a.type = hipMemoryTypeUnregistered;
        a.device = -1;
    } else {
        a.device = al->device;
        a.allocationFlags = al->flags;
        switch (al->kind) {
        case MemKind::Device:
            a.type = hipMemoryTypeDevice;
            a.devicePointer = p;
            break;
        case MemKind::Managed:
            a.type = hipMemoryTypeManaged;
            a.isManaged = 1;
            a.devicePointer = p;
            a.hostPointer = p;
            break;
        case MemKind::PinnedHost:
        case MemKind::RegisteredHost:
            a.type = hipMemoryTypeHost;
            a.devicePointer = p;
            a.hostPointer = p;
            break;
        }
    }
    *attributes = a;
    return hipSuccess;
}

hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr) {
    HIPCPU_ENTER();
    AllocationRef al = hipcpu::find_allocation(dptr);
    if (!al || (al->kind != MemKind::Device && al->kind != MemKind::Managed)) return ret(hipErrorNotFound);
    if (pbase != nullptr) *pbase = reinterpret_cast<void *>(al->base);
    if (psize != nullptr) *psize = al->size;
    return hipSuccess;
}

hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr) {
    HIPCPU_ENTER();
    if (data == nullptr) return ret(hipErrorInvalidValue);
    AllocationRef al = hipcpu::find_allocation(ptr);
    if (!al) return ret(hipErrorInvalidValue);  // not memory the runtime knows
    const bool host = al->kind == MemKind::PinnedHost || al->kind == MemKind::RegisteredHost;
    switch (attribute) {
    case HIP_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *static_cast<unsigned *>(data) = host ? hipMemoryTypeHost
                                         : al->kind == MemKind::Managed ? hipMemoryTypeManaged
                                                                        : hipMemoryTypeDevice;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<void **>(data) = ptr; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_HOST_POINTER:
        if (al->kind == MemKind::Device) return ret(hipErrorInvalidValue);  // no host address
        *static_cast<void **>(data) = ptr;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_BUFFER_ID:  // a counter never reused: tells a new allocation at a freed address
        *static_cast<unsigned long long *>(data) = al->id;
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<unsigned *>(data) = al->kind == MemKind::Managed; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int *>(data) = al->device; return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *static_cast<void **>(data) = reinterpret_cast<void *>(al->base);
        return hipSuccess;
    case HIP_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t *>(data) = al->size; return hipSuccess;
    default: return ret(hipErrorInvalidValue);  // not one hip-cpu can answer truthfully
    }
}

hipError_t hipMemGetInfo(size_t *free, size_t *total) {
    HIPCPU_ENTER();
    if (free == nullptr || total == nullptr) return ret(hipErrorInvalidValue);
    if (hipError_t e = check_devices()) return ret(e);
    const std::size_t cap = hipcpu::device_capacity();
    const std::size_t used = hipcpu::used_bytes[std::size_t(hipcpu::current_device())].load();
    *total = cap;
    *free = used > cap ? 0 : cap - used;
    return hipSuccess;
}

size_t hipcpuLiveDeviceAllocations(int device) {
    if (device < 0 || device >= hipcpu::kMaxDevices) return 0;
    auto &r = hipcpu::registry();
    std::shared_lock g(r.m);
    return r.live_device[std::size_t(device)];
}

size_t hipcpuLiveHostAllocations(void) {
    auto &r = hipcpu::registry();
    std::shared_lock g(r.m);
    return r.live_host;
}

size_t hipcpuPeakHostBytes(int reset) {
    auto &r = hipcpu::registry();
    std::unique_lock g(r.m);
    const std::size_t peak = r.peak_host_bytes;
    if (reset) r.peak_host_bytes = r.live_host_bytes;
    return peak;
}

void hipcpuSetTrailingGuard(size_t bytes) { hipcpu::trailing_guard.store(bytes); }

int hipcpuDeviceOf(const void *ptr) {
    AllocationRef al = hipcpu::find_allocation(ptr);
    return al && al->kind == MemKind::Device ? al->device : -1;
}

}  // extern "C"
