// SPDX-License-Identifier: MIT
#include "gpu/hip.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <new>
#include <thread>

namespace hipfile::gpu {

namespace {

MemKind kind_of(const hipPointerAttribute_t& a) noexcept {
#if HIP_VERSION_MAJOR >= 6
  switch (a.type) {
    case hipMemoryTypeHost: return MemKind::Host;
    case hipMemoryTypeDevice: return a.isManaged ? MemKind::Managed : MemKind::Device;
    case hipMemoryTypeManaged:
    case hipMemoryTypeUnified: return MemKind::Managed;
    default: return MemKind::Unregistered;
  }
#else
  // ROCm 5: memoryType has no Unregistered/Managed values; isManaged tells managed memory.
  if (a.isManaged) return MemKind::Managed;
  switch (a.memoryType) {
    case hipMemoryTypeHost: return MemKind::Host;
    case hipMemoryTypeDevice: return MemKind::Device;
    case hipMemoryTypeUnified: return MemKind::Managed;
    default: return MemKind::Unregistered;
  }
#endif
}

// The pinned host allocation or hipHostRegister range containing ptr. hipMemGetAddressRange
// refuses host memory on CUDA (cuMemGetAddressRange), so the pointer's range attributes are asked.
hipError_t host_range(const void* ptr, PointerInfo& out) noexcept {
  void* start = nullptr;
  std::size_t size = 0;
  auto* p = const_cast<void*>(ptr);
  hipError_t e = hipPointerGetAttribute(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, p);
  if (e == hipSuccess) e = hipPointerGetAttribute(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, p);
  const auto base = reinterpret_cast<std::uintptr_t>(start);
  const auto at = reinterpret_cast<std::uintptr_t>(ptr);
  if (e != hipSuccess || base == 0 || at < base || at - base >= size) {
    (void)hipGetLastError();
    return e != hipSuccess ? e : hipErrorInvalidValue;  // an answer that does not contain ptr is none
  }
  out.alloc_base = static_cast<const std::byte*>(start);
  out.alloc_size = size;
  return hipSuccess;
}

}  // namespace

hipError_t query_pointer(const void* ptr, PointerInfo& out) noexcept {
  out = PointerInfo{};
  if (ptr == nullptr) return hipErrorInvalidValue;
  hipPointerAttribute_t attr{};
  hipError_t e = hipPointerGetAttributes(&attr, ptr);
#if HIP_VERSION_MAJOR < 6
  if (e == hipErrorInvalidValue) {  // ROCm 5's answer for plain host memory
    (void)hipGetLastError();
    return hipSuccess;
  }
#endif
  if (e != hipSuccess) {
    (void)hipGetLastError();
    return e;
  }
  out.kind = kind_of(attr);
  if (out.kind == MemKind::Device || out.kind == MemKind::Managed) {
    out.device = attr.device;
    hipDeviceptr_t base = nullptr;
    std::size_t size = 0;
    hipError_t r = hipMemGetAddressRange(&base, &size, const_cast<void*>(ptr));
    if (r == hipSuccess) {
      out.alloc_base = static_cast<const std::byte*>(base);
      out.alloc_size = size;
    } else {
      (void)hipGetLastError();
      if (out.kind == MemKind::Device) return r;
    }
  }
  // Pinned host memory left without a range is not an error here; its callers refuse
  // unregistered I/O on it (bound_unknown).
  if (out.kind == MemKind::Host) (void)host_range(ptr, out);
  return hipSuccess;
}

hipError_t poll_event(hipEvent_t event, unsigned longest_sleep_us) noexcept {
  constexpr int kQuickAsks = 8;  // a copy about to finish is answered without a sleep
  const auto longest = std::chrono::microseconds(std::max(1u, longest_sleep_us));
  for (int i = 0; i < kQuickAsks; ++i)
    if (hipError_t e = hipEventQuery(event); e != hipErrorNotReady) return e;
  for (auto sleep = std::min(longest, std::chrono::microseconds(8));; sleep = std::min(2 * sleep, longest)) {
    std::this_thread::sleep_for(sleep);
    if (hipError_t e = hipEventQuery(event); e != hipErrorNotReady) return e;
  }
}

std::uint64_t allocation_id(const void* ptr) noexcept {
  // HIP's BUFFER_ID is CUDA's CU_POINTER_ATTRIBUTE_BUFFER_ID (same number, never reused in a
  // context), which hip-cuda forwards to the driver.
  unsigned long long id = 0;
  if (ptr == nullptr ||
      hipPointerGetAttribute(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, const_cast<void*>(ptr)) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return id;
}

DeviceGuard::DeviceGuard(int device) noexcept {
  if (hipGetDevice(&previous_) != hipSuccess) previous_ = -1;
  if (device >= 0 && device != previous_) {
    status_ = hipSetDevice(device);
    changed_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  // Only a guard that switched the device switches it back: asking the runtime again on every
  // small request costs a call for nothing.
  if (changed_ && previous_ >= 0) (void)hipSetDevice(previous_);
}

hipError_t sync_null_stream(int device) noexcept {
  DeviceGuard on(device);
  return on.status() == hipSuccess ? hipStreamSynchronize(nullptr) : on.status();
}

#if HIP_VERSION_MAJOR < 6
namespace {
struct HostCall {
  void (*fn)(void*);
  void* data;
};
void run_host_call(hipStream_t, hipError_t, void* p) {
  HostCall call = *static_cast<HostCall*>(p);
  delete static_cast<HostCall*>(p);
  call.fn(call.data);
}
}  // namespace
#endif

hipError_t launch_host_func(hipStream_t stream, void (*fn)(void*), void* data) noexcept {
#if HIP_VERSION_MAJOR >= 6
  return hipLaunchHostFunc(stream, fn, data);
#else
  auto* call = new (std::nothrow) HostCall{fn, data};
  if (call == nullptr) return hipErrorOutOfMemory;
  hipError_t e = hipStreamAddCallback(stream, run_host_call, call, 0);
  if (e != hipSuccess) delete call;
  return e;
#endif
}

hipError_t stream_device(hipStream_t stream, int& device) noexcept {
  if (stream == nullptr) return hipGetDevice(&device);
#if HIP_VERSION_MAJOR >= 6
  hipDevice_t d = 0;
  hipError_t e = hipStreamGetDevice(stream, &d);
  if (e == hipSuccess) device = d;
  return e;
#else
  // ROCm 5 has no hipStreamGetDevice; validate the stream and assume the current device.
  hipError_t e = hipStreamQuery(stream);
  if (e != hipSuccess && e != hipErrorNotReady) return e;
  return hipGetDevice(&device);
#endif
}

hipError_t alloc_host_mapped(std::size_t bytes, void*& host, void*& device) noexcept {
  host = device = nullptr;
  // Portable: a stream of any device may wait on the word, not only the allocating device's
  // (CUDA maps pinned memory into the allocating context alone without it).
  hipError_t e = hipHostMalloc(&host, bytes, hipHostMallocMapped | hipHostMallocPortable);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    host = nullptr;
    return e;
  }
  e = hipHostGetDevicePointer(&device, host, 0);
  if (e != hipSuccess) {
    (void)hipGetLastError();
    (void)hipHostFree(host);
    host = device = nullptr;
  }
  return e;
}

void free_host_mapped(void* host) noexcept {
  if (host != nullptr) (void)hipHostFree(host);
}

hipError_t stream_wait_geq32(hipStream_t stream, void* device_word, std::uint32_t value) noexcept {
  // ROCm 5.x and 6.x both have hipStreamWaitValue32 with this signature; hip-cpu polls on the
  // stream's worker, hip-cuda maps it onto cuStreamWaitValue32_v2.
  hipError_t e = hipStreamWaitValue32(stream, device_word, value, hipStreamWaitValueGte, 0xFFFFFFFFu);
  if (e != hipSuccess) (void)hipGetLastError();
  return e;
}

// Pinned staging is made of anonymous memory that the calling thread faults in and then pins,
// not of hipHostMalloc: the GPU driver serialises hipHostMalloc's page allocation across threads,
// so the engine's workers, which make their lanes at once at the first large read, waited on each
// other for most of a first load's extra time; faulting pages in runs on each worker's own thread
// (bench/RESULTS.md, "The first load"). Huge pages are asked for (fewer faults and pins) where the
// kernel gives them. fork()ed children do not inherit it: a child never uses its parent's lanes,
// and pinned pages shared copy-on-write would be the parent's no longer.
hipError_t alloc_pinned(void*& host, std::size_t bytes) noexcept {
  host = nullptr;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return hipErrorOutOfMemory;
  (void)::madvise(p, bytes, MADV_HUGEPAGE);
  (void)::madvise(p, bytes, MADV_DONTFORK);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t at = 0; at < bytes; at += page) static_cast<volatile unsigned char*>(p)[at] = 0;
  if (hipError_t e = hipHostRegister(p, bytes, hipHostRegisterPortable); e != hipSuccess) {
    ::munmap(p, bytes);
    return e;
  }
  host = p;
  return hipSuccess;
}

hipError_t free_pinned(void* host, std::size_t bytes) noexcept {
  const hipError_t e = hipHostUnregister(host);
  ::munmap(host, bytes);
  return e;
}

}  // namespace hipfile::gpu
