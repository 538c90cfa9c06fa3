// SPDX-License-Identifier: MIT
// What moving data through pinned host memory asks of the HIP runtime: streams, events,
// stream-ordered copies, pinned and registered host memory. Inline and one call each, so the
// staging engine's hot path costs what calling HIP directly costs; errors are HIP's, unconverted,
// and the caller decides what to clear (hipGetLastError) and when.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstddef>

namespace hipfile::gpu {

/// `ordered_with_null_stream`: a blocking stream, which under the legacy NULL stream's rules
/// waits for earlier NULL-stream work by itself; otherwise a non-blocking one.
inline hipError_t create_stream(hipStream_t& stream, bool ordered_with_null_stream) noexcept {
  return hipStreamCreateWithFlags(&stream, ordered_with_null_stream ? hipStreamDefault : hipStreamNonBlocking);
}
inline hipError_t destroy_stream(hipStream_t stream) noexcept { return hipStreamDestroy(stream); }
inline hipError_t sync_stream(hipStream_t stream) noexcept { return hipStreamSynchronize(stream); }
/// hipSuccess when idle, hipErrorNotReady while work runs, else an error.
inline hipError_t query_stream(hipStream_t stream) noexcept { return hipStreamQuery(stream); }

/// An event without timing; `blocking_sync`: waits on it sleep instead of spinning.
inline hipError_t create_event(hipEvent_t& event, bool blocking_sync) noexcept {
  return hipEventCreateWithFlags(&event, hipEventDisableTiming | (blocking_sync ? hipEventBlockingSync : 0u));
}
/// An event with timing, for elapsed_ms (the trace's clock; the engine's own events have none).
inline hipError_t create_timed_event(hipEvent_t& event) noexcept { return hipEventCreate(&event); }
/// Milliseconds from `from` to `to`, both recorded timed events.
inline hipError_t elapsed_ms(float& ms, hipEvent_t from, hipEvent_t to) noexcept {
  return hipEventElapsedTime(&ms, from, to);
}
inline hipError_t destroy_event(hipEvent_t event) noexcept { return hipEventDestroy(event); }
inline hipError_t record_event(hipEvent_t event, hipStream_t stream) noexcept { return hipEventRecord(event, stream); }
inline hipError_t wait_event(hipEvent_t event) noexcept { return hipEventSynchronize(event); }

inline hipError_t copy_to_device_async(void* dst, const void* src, std::size_t bytes, hipStream_t stream) noexcept {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, stream);
}
inline hipError_t copy_to_host_async(void* dst, const void* src, std::size_t bytes, hipStream_t stream) noexcept {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, stream);
}

/// Pinned host memory that every device's copies may use (portable), page-aligned: anonymous
/// memory the calling thread faults in, then pins (gpu/hip.cpp says why not hipHostMalloc).
/// Freed with free_pinned and the same size; null with the error on failure.
hipError_t alloc_pinned(void*& host, std::size_t bytes) noexcept;
hipError_t free_pinned(void* host, std::size_t bytes) noexcept;

/// Pins existing memory (whole pages) for the device to read only: page-cache pages of a
/// read-only mapping. The pin belongs to the current device's context (it is not portable), so
/// the caller makes the reading device current first (the engine's workers stay on their job's
/// device). Unpinned with unregister_host.
inline hipError_t register_read_only(void* host, std::size_t bytes) noexcept {
  constexpr unsigned kRegisterReadOnly = 0x8;  // hipHostRegisterReadOnly: HIP's and CUDA's value
  return hipHostRegister(host, bytes, kRegisterReadOnly);
}
inline hipError_t unregister_host(void* host) noexcept { return hipHostUnregister(host); }

}  // namespace hipfile::gpu
