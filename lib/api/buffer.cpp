// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include <cstdint>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "gpu/hip.hpp"
#include "runtime/driver.hpp"
#include "runtime/stats.hpp"
#include "sys/phases.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::Driver;
using hipfile::gpu::MemKind;
namespace stats = hipfile::engine::stats;

namespace {

// A registration whose memory was freed, and perhaps allocated again at the same address (GPU
// runtimes reuse addresses at once): the runtime's allocation id at its base is no longer the one
// recorded. cuFile drops a registration when its memory is freed; so do we, when the address is
// registered again. Where the runtime gives no id (0) upstream's refusal stands. `new_id` is the
// id at `new_base`, asked once for the old registration there and the new one.
bool registration_is_stale(const hipfile::engine::Buffer& b, const std::byte* new_base, std::uint64_t new_id) {
  if (b.alloc_id == 0) return false;
  return (b.base == new_base ? new_id : hipfile::gpu::allocation_id(b.base)) != b.alloc_id;
}

// The checks and the table insert of hipFileBufRegister, with the driver open.
hipFileError_t register_buffer(Driver& driver, const void* buffer_base, size_t length, int flags) {
  hipfile::sys::PhaseTimer timed(hipfile::sys::Phase::BufferRegistration);
  if (buffer_base == nullptr) return {hipFileInvalidValue, hipSuccess};
  const auto* base = static_cast<const std::byte*>(buffer_base);
  const std::uint64_t alloc_id = hipfile::gpu::allocation_id(base);
  driver.buffers.drop_stale(base, length, [&](const hipfile::engine::Buffer& b) {
    return registration_is_stale(b, base, alloc_id);
  });
  if (driver.buffers.contains_base(buffer_base)) return {hipFileMemoryAlreadyRegistered, hipSuccess};
  hipfile::gpu::PointerInfo info;
  if (hipError_t e = hipfile::gpu::query_pointer(buffer_base, info); e != hipSuccess) {
    if (e == hipErrorInvalidValue || e == hipErrorNotFound) return {hipFileInvalidValue, hipSuccess};
    return {hipFileHipDriverError, e};
  }
  const std::shared_ptr<hipfile::engine::Instance> instance = driver.lease();  // none: a forked child short of memory
  if (info.kind != MemKind::Device && (!instance || !instance->config().allow_system_memory))
    return {hipFileHipMemoryTypeInvalid, hipSuccess};
  const auto addr = reinterpret_cast<std::uintptr_t>(base);
  if (length > UINTPTR_MAX - addr) return {hipFileHipPointerRangeError, hipSuccess};
  if (info.alloc_base != nullptr && length > static_cast<std::size_t>(info.alloc_base + info.alloc_size - base))
    return {hipFileHipPointerRangeError, hipSuccess};
  return to_error(driver.buffers.add(base, length, info.device, info.kind, flags, alloc_id));
}

hipFileError_t buf_register(const void* buffer_base, size_t length, int flags) {
  return guarded([&]() -> hipFileError_t {
    // Upstream opens even when the registration then fails. The open and the insert are one
    // step for a concurrent last close (Driver::register_open).
    Driver& driver = Driver::get();
    return driver.register_open([&] { return register_buffer(driver, buffer_base, length, flags); });
  });
}

hipFileError_t buf_deregister(const void* buffer_base) {
  return guarded([&]() -> hipFileError_t {
    Driver& driver = Driver::get();
    if (!driver.is_open()) return {hipFileDriverClosing, hipSuccess};
    if (buffer_base == nullptr) return {hipFileInvalidValue, hipSuccess};
    if (!driver.buffers.remove(buffer_base)) return {hipFileMemoryNotRegistered, hipSuccess};
    return {hipFileSuccess, hipSuccess};
  });
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileBufRegister(const void* buffer_base, size_t length, int flags) {
  hipFileError_t e = buf_register(buffer_base, length, flags);
  stats::count(stats::Call::BufRegister, e.err == hipFileSuccess);
  return e;
}

HIPFILE_API hipFileError_t hipFileBufDeregister(const void* buffer_base) {
  hipFileError_t e = buf_deregister(buffer_base);
  stats::count(stats::Call::BufDeregister, e.err == hipFileSuccess);
  return e;
}

}  // extern "C"
