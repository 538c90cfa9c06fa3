// SPDX-License-Identifier: MIT
/*
 * <hip/hip_cpu.h>: hip-cpu's test interface. It exists only on platform=cpu; tests that use it
 * must be built only there. Everything here is thread-safe and has C linkage.
 *
 * API names are the HIP function names as strings, e.g. "hipMemcpyAsync", "hipHostMalloc",
 * "hipStreamCreateWithFlags", "hipPointerGetAttributes". Every public hip* function of hip-cpu
 * is counted and can be made to fail.
 */
#ifndef HIPCPU_HIP_CPU_H
#define HIPCPU_HIP_CPU_H

#include <hip/hip_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Arm a fault: the nth call of `api` counted from now (1 = the very next call) and the count-1
 * calls after it return `err` without doing anything else (outputs untouched, nothing enqueued);
 * they do set the thread's last error, as a real failure would. nth == 0 and count == 0 are
 * treated as 1. Several faults may be armed at once, for the same or different APIs; each counts
 * the calls of its API independently, and when several would fire on one call the earliest armed
 * wins. Failed calls still count in hipcpuCallCount.
 */
HIPCPU_API_EXPORT void hipcpuInjectFault(const char *api, unsigned nth, unsigned count, hipError_t err);

/* Disarm every fault armed by hipcpuInjectFault. */
HIPCPU_API_EXPORT void hipcpuClearFaults(void);

/*
 * How many times `api` was called since the start of the process or the last
 * hipcpuResetCallCounts(), including calls that failed (injected or not). Unknown names give 0.
 */
HIPCPU_API_EXPORT unsigned long long hipcpuCallCount(const char *api);

/* Set every call counter to zero. */
HIPCPU_API_EXPORT void hipcpuResetCallCounts(void);

/* Number of hipMalloc allocations on `device` that have not been hipFree'd (0 for a bad id). */
HIPCPU_API_EXPORT size_t hipcpuLiveDeviceAllocations(int device);

/* Pinned host memory the program holds: hipHostMalloc allocations not yet hipHostFree'd, and
 * hipHostRegister ranges (other than read-only ones) not yet unregistered. */
HIPCPU_API_EXPORT size_t hipcpuLiveHostAllocations(void);

/* The most bytes of that pinned host memory live at once (their sizes as asked), since the start
 * or the last reset; `reset` non-zero starts the peak again from what is live now. */
HIPCPU_API_EXPORT size_t hipcpuPeakHostBytes(int reset);

/*
 * Device of the hipMalloc allocation that contains `ptr` (interior pointers too), or -1 for
 * anything else (host, managed, unknown, NULL).
 */
HIPCPU_API_EXPORT int hipcpuDeviceOf(const void *ptr);

/*
 * hipHostMalloc, hipMallocManaged and host-visible hipExtMallocWithFlags allocations made after
 * this call are followed, right at their last byte, by `bytes` of read-write memory that belongs
 * to no allocation (the pointer queries do not know it) and is unmapped with the allocation. A
 * test fills it and checks afterwards that nothing wrote past the allocation's end. 0 (the
 * default) adds none; allocations already made keep what they had.
 */
HIPCPU_API_EXPORT void hipcpuSetTrailingGuard(size_t bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* HIPCPU_HIP_CPU_H */
