// SPDX-License-Identifier: MIT
// hipStreamWaitValue32: the stream's worker waits until a 32-bit word satisfies a condition.
// The word is written by another thread (or a later-ordered host function of another stream), so
// it is polled with acquire loads: a short spin with yields, then sleeps of growing length (up to
// 50 us), which keeps the wake-up latency low without burning a core on a long wait.
#include "internal.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using hipcpu::ret;

namespace {

bool satisfied(std::uint32_t word, std::uint32_t value, unsigned flags, std::uint32_t mask) noexcept {
    const std::uint32_t v = word & mask;
    switch (flags) {
    case hipStreamWaitValueGte: return v >= value;
    case hipStreamWaitValueEq: return v == value;
    case hipStreamWaitValueAnd: return (v & value) != 0;
    case hipStreamWaitValueNor: return (~(v | (value & mask)) & mask) != 0;
    default: return true;
    }
}

}  // namespace

extern "C" {

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask) {
    HIPCPU_ENTER();
    if (ptr == nullptr || flags > hipStreamWaitValueNor) return ret(hipErrorInvalidValue);
    if (reinterpret_cast<std::uintptr_t>(ptr) % alignof(std::uint32_t) != 0)
        return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    // The word must be memory the runtime knows: pinned or registered host memory (its device
    // alias is the same address), or device memory (read through the runtime's own view).
    hipcpu::AllocationRef al = hipcpu::find_allocation(ptr);
    if (!al) return ret(hipErrorInvalidValue);
    const std::size_t at = reinterpret_cast<std::uintptr_t>(ptr) - al->base;
    if (at + sizeof(std::uint32_t) > al->size) return ret(hipErrorInvalidValue);
    auto *word = reinterpret_cast<std::uint32_t *>(
        al->kind == hipcpu::MemKind::Device || al->kind == hipcpu::MemKind::Managed ? al->rw + at
                                                                                    : static_cast<unsigned char *>(ptr));
    hipcpu::StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    hipcpu::enqueue(s, [al, word, value, flags, mask] {
        std::atomic_ref<std::uint32_t> w(*word);
        auto pause = std::chrono::microseconds(1);
        for (unsigned spins = 0; !satisfied(w.load(std::memory_order_acquire), value, flags, mask); ++spins) {
            if (spins < 64) {
                std::this_thread::yield();
            } else {
                std::this_thread::sleep_for(pause);
                if (pause < std::chrono::microseconds(50)) pause *= 2;
            }
        }
        return hipSuccess;
    });
    return hipSuccess;
}

}  // extern "C"
