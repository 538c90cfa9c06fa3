// SPDX-License-Identifier: MIT
// Shared declarations between hip-cpu's translation units. Each .cpp owns one concern; this
// header is the narrow set of hooks they need from one another.
#pragma once

#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace hipcpu {

// ---- errors.cpp ------------------------------------------------------------------------------
// Every public function returns through ret(), which records failures as the thread's last error
// the way HIP does (hipErrorNotReady is a status, not an error, and is not recorded).
hipError_t ret(hipError_t e) noexcept;

// ---- faults.cpp ------------------------------------------------------------------------------
struct ApiSlot;
ApiSlot &api_slot(const char *name);
// Counts the call and answers the injected error, or hipSuccess when the call should proceed.
hipError_t api_enter(ApiSlot &slot) noexcept;

// Every public entry point starts with this: count the call, fire any armed fault. __func__ of an
// extern "C" function is its plain name, so the fault/count key cannot drift from the API name.
#define HIPCPU_ENTER()                                                                            \
    static ::hipcpu::ApiSlot &hipcpu_slot_ = ::hipcpu::api_slot(__func__);                       \
    if (hipError_t hipcpu_injected_ = ::hipcpu::api_enter(hipcpu_slot_);                          \
        hipcpu_injected_ != hipSuccess)                                                           \
    return ::hipcpu::ret(hipcpu_injected_)

// ---- devices.cpp -----------------------------------------------------------------------------
int device_count() noexcept;        // from HIPCPU_DEVICE_COUNT, read once at first use
std::size_t device_capacity() noexcept;  // bytes per device, from HIPCPU_DEVICE_MEMORY_MB
int current_device() noexcept;      // this thread's current device
void set_current_device(int dev) noexcept;
bool valid_device(int dev) noexcept;
void fill_properties(hipDeviceProp_t &props, int deviceId) noexcept;  // deviceId must be valid

// ---- memory.cpp ------------------------------------------------------------------------------
enum class MemKind { Device, Managed, PinnedHost, RegisteredHost };

// One allocation or registered range. Async work holds a shared_ptr to the allocations it
// touches, so hipFree never unmaps memory under a copy that is still queued.
unsigned long long next_allocation_id() noexcept;  // 1, 2, 3, ... (memory.cpp)

struct Allocation {
    static unsigned long long next_id() noexcept { return next_allocation_id(); }
    MemKind kind;
    int device;
    std::uintptr_t base;  // the address the application sees
    std::size_t size;     // bytes the application asked for
    std::size_t mapped;   // bytes mapped (size rounded up to pages); 0 for registered ranges
    unsigned flags;
    unsigned char *rw;    // where the runtime reads and writes the bytes of `base`
    // HIP_POINTER_ATTRIBUTE_BUFFER_ID: never reused, so an allocation that comes back at a freed
    // one's address is told apart from it (GPU runtimes reuse addresses as soon as they are free).
    unsigned long long id;
    pid_t owner;  // the process that made it (a forked child inherits the parent's)
    Allocation(MemKind k, int dev, std::uintptr_t b, std::size_t s, std::size_t m, unsigned f,
               unsigned char *view)
        : kind(k), device(dev), base(b), size(s), mapped(m), flags(f), rw(view), id(next_id()), owner(getpid()) {}
    ~Allocation();
    Allocation(const Allocation &) = delete;
    Allocation &operator=(const Allocation &) = delete;
};
using AllocationRef = std::shared_ptr<Allocation>;

// The allocation containing `p` (interior pointers too), or null.
AllocationRef find_allocation(const void *p);

// ---- streams.cpp -----------------------------------------------------------------------------
using Op = std::function<hipError_t()>;

struct Stream;
using StreamRef = std::shared_ptr<Stream>;

// Resolve a handle (NULL = the current device's legacy default stream). Null on a bad handle.
StreamRef resolve_stream(hipStream_t s);
// Enqueue work with HIP's ordering rules; returns the op's sequence number on that stream.
std::uint64_t enqueue(const StreamRef &s, Op op);
// Block until the op with sequence number `seq` (and everything before it) has completed.
void wait_for(const StreamRef &s, std::uint64_t seq);
// Take (and clear) the stream's first error from asynchronous work.
hipError_t take_stream_error(const StreamRef &s);
// Wait for every stream of the device; the first asynchronous error found, if any.
hipError_t synchronize_device(int dev);
// Waits until every stream of every device has run what was queued on it so far, taking no
// stream's error (the frees' drain below).
void drain_all_devices();

// ---- context.cpp -----------------------------------------------------------------------------
// CUDA's context lock, so that what deadlocks on a GPU deadlocks here: hipFree and hipHostFree
// drain every device while holding it (FreeUnderContextLock), and the calls that queue copies,
// memsets and host functions take it shared (ContextShared). Freeing memory while a stream waits
// for work another thread has yet to queue therefore never returns, as with CUDA.
std::shared_mutex &context_lock();
using ContextShared = std::shared_lock<std::shared_mutex>;
struct FreeUnderContextLock {
    std::unique_lock<std::shared_mutex> held{context_lock()};
    FreeUnderContextLock() { drain_all_devices(); }
};

}  // namespace hipcpu
