// SPDX-License-Identifier: MIT
// Every HIP runtime call the library makes goes through lib/gpu (here, and copy.hpp for what the
// staging engine asks of streams, events and pinned memory), so that differences between HIP
// implementations (ROCm 5 vs 6 pointer attributes, hip-cpu, hip-cuda) are handled once.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hipfile::gpu {

/// What kind of memory a pointer refers to, independent of the HIP version's enum values.
enum class MemKind { Unregistered, Host, Device, Managed };

struct PointerInfo {
  MemKind kind = MemKind::Unregistered;
  int device = -1;                 // device of Device/Managed memory, else -1
  // Containing allocation (Device/Managed) or pinned allocation / hipHostRegister range (Host),
  // else null; also null for Managed or Host memory whose range the runtime could not give (the
  // caller then has no bound and must refuse unregistered I/O: see bound_unknown).
  const std::byte* alloc_base = nullptr;
  std::size_t alloc_size = 0;
};

/// True for managed or pinned host memory whose allocation the runtime could not bound: I/O on
/// it is refused unless a registration bounds it instead (any size could run past its end).
/// Pageable memory (Unregistered) has no allocation the runtime knows and stays unbounded.
inline bool bound_unknown(const PointerInfo& info) noexcept {
  return (info.kind == MemKind::Managed || info.kind == MemKind::Host) && info.alloc_base == nullptr;
}

/// Classifies `ptr`. hipErrorInvalidValue for a pointer HIP refuses; other errors as HIP gives
/// them. An unknown host pointer is Unregistered (ROCm 5 reports it as an error; we normalise).
hipError_t query_pointer(const void* ptr, PointerInfo& out) noexcept;

/// The runtime's id of the allocation containing `ptr` (HIP_POINTER_ATTRIBUTE_BUFFER_ID), which
/// changes when the address is freed and allocated again; 0 where the runtime cannot say
/// (memory it does not know, such as pageable or freed memory).
std::uint64_t allocation_id(const void* ptr) noexcept;

inline hipError_t device_count(int& count) noexcept { return hipGetDeviceCount(&count); }
inline hipError_t runtime_version(int& version) noexcept { return hipRuntimeGetVersion(&version); }
/// Makes `device` current for the calling thread, for good (DeviceGuard: for a scope).
inline hipError_t set_device(int device) noexcept { return hipSetDevice(device); }
/// Clears the thread's last HIP error, which a failed call leaves behind for the next
/// hipGetLastError (the application's) to find.
inline void clear_last_error() noexcept { (void)hipGetLastError(); }
inline const char* error_name(hipError_t e) noexcept { return hipGetErrorName(e); }

/// Makes `device` current for the scope and restores the caller's device afterwards, so that
/// the library never leaves a thread on a different device than it found it.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) noexcept;
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  hipError_t status() const noexcept { return status_; }

 private:
  int previous_ = -1;
  bool changed_ = false;
  hipError_t status_ = hipSuccess;
};

/// Waits until `device`'s NULL stream has finished the work queued on it, as a synchronous
/// hipMemcpy would before it starts: the library's own streams are non-blocking.
hipError_t sync_null_stream(int device) noexcept;

/// Waits for `event` by asking the runtime whether it has completed: a few times at once, then
/// between sleeps that double up to `longest_sleep_us`. It holds a core only while asking; the
/// wait ends at most one sleep (plus the thread's timer slack) after the event. Errors are HIP's.
hipError_t poll_event(hipEvent_t event, unsigned longest_sleep_us = 128) noexcept;

/// Pinned host memory mapped into the device address space: `host` for the CPU, `device` for
/// stream memory operations. Freed with free_host_mapped(host).
hipError_t alloc_host_mapped(std::size_t bytes, void*& host, void*& device) noexcept;
void free_host_mapped(void* host) noexcept;

/// Makes `stream` wait until the 32-bit word at `device_word` is >= value (hipStreamWaitValueGte).
/// An error means the stream takes no wait (hipErrorNotSupported where the device lacks stream
/// memory operations).
hipError_t stream_wait_geq32(hipStream_t stream, void* device_word, std::uint32_t value) noexcept;

/// Runs `fn(data)` on the host when `stream` reaches this point (hipLaunchHostFunc; ROCm 5's
/// runtime library lacks it, so there it is a stream callback).
hipError_t launch_host_func(hipStream_t stream, void (*fn)(void*), void* data) noexcept;

/// The device that owns `stream` (the current device for the NULL stream).
hipError_t stream_device(hipStream_t stream, int& device) noexcept;


}  // namespace hipfile::gpu
