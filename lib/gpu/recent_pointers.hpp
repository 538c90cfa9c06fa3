// SPDX-License-Identifier: MIT
// The unregistered I/O path asks the runtime about the caller's buffer on every call. A small
// per-thread memory of the device allocations it was last asked about answers a pointer inside
// one of them after a single query of the allocation's id, where query_pointer makes two
// (bench/RESULTS.md: small unregistered reads cost about one such query more than by hand).
#pragma once

#include "gpu/hip.hpp"

namespace hipfile::gpu {

/// query_pointer, answered from the calling thread's recent device allocations when `ptr`
/// lies in one whose allocation id (HIP_POINTER_ATTRIBUTE_BUFFER_ID) is still the one it had:
/// the runtime gives a new id to memory allocated again at a freed address, so a freed,
/// resized or moved allocation is never answered from memory. Allocations whose id the
/// runtime cannot give (0) are not remembered.
hipError_t query_pointer_recent(const void* ptr, PointerInfo& out) noexcept;

/// Forgets the calling thread's recent allocations (tests).
void forget_recent_pointers() noexcept;

}  // namespace hipfile::gpu
