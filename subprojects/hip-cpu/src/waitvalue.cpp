// SPDX-License-Identifier: MIT
// hipStreamWaitValue32/64: the stream's worker waits until a word satisfies a condition;
// hipStreamWriteValue32/64: the stream's worker stores a word. The word is written by another
// thread (or a later-ordered operation of another stream), so it is polled with acquire loads:
// a short spin with yields, then sleeps of growing length (up to 50 us), which keeps the
// wake-up latency low without burning a core on a long wait. Stores use release order.
#include "internal.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using hipcpu::ret;

namespace {

template <class Word>
bool satisfied(Word word, Word value, unsigned flags, Word mask) noexcept {
    const Word v = word & mask;
    switch (flags) {
    case hipStreamWaitValueGte: return v >= value;
    case hipStreamWaitValueEq: return v == value;
    case hipStreamWaitValueAnd: return (v & value) != 0;
    case hipStreamWaitValueNor: return static_cast<Word>(~(v | (value & mask)) & mask) != 0;
    default: return true;
    }
}

// The word at `ptr`, as the runtime may touch it: pinned, registered or signal memory (its
// device alias is the same address), or device memory (through the runtime's own view). Null
// for memory the runtime does not know or a word that runs past its allocation.
template <class Word>
bool plausible(void *ptr) {
    return ptr != nullptr && reinterpret_cast<std::uintptr_t>(ptr) % alignof(Word) == 0;
}

template <class Word>
Word *word_at(void *ptr, hipcpu::AllocationRef &al) {
    al = hipcpu::find_allocation(ptr);
    if (!al) return nullptr;
    const std::size_t at = reinterpret_cast<std::uintptr_t>(ptr) - al->base;
    if (at + sizeof(Word) > al->size) return nullptr;
    const bool device = al->kind == hipcpu::MemKind::Device || al->kind == hipcpu::MemKind::Managed;
    return reinterpret_cast<Word *>(device ? al->rw + at : static_cast<unsigned char *>(ptr));
}

template <class Word>
hipError_t wait_value(hipStream_t stream, void *ptr, Word value, unsigned flags, Word mask) {
    if (!plausible<Word>(ptr) || flags > hipStreamWaitValueNor) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::AllocationRef al;
    Word *word = word_at<Word>(ptr, al);
    if (word == nullptr) return ret(hipErrorInvalidValue);
    hipcpu::StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    hipcpu::enqueue(s, [al, word, value, flags, mask] {
        std::atomic_ref<Word> w(*word);
        auto pause = std::chrono::microseconds(1);
        for (unsigned spins = 0; !satisfied<Word>(w.load(std::memory_order_acquire), value, flags, mask); ++spins) {
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

template <class Word>
hipError_t write_value(hipStream_t stream, void *ptr, Word value, unsigned flags) {
    if (!plausible<Word>(ptr) || flags != 0) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::AllocationRef al;
    Word *word = word_at<Word>(ptr, al);
    if (word == nullptr) return ret(hipErrorInvalidValue);
    hipcpu::StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    hipcpu::enqueue(s, [al, word, value] {
        std::atomic_ref<Word>(*word).store(value, std::memory_order_release);
        return hipSuccess;
    });
    return hipSuccess;
}

}  // namespace

extern "C" {

hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags,
                                uint32_t mask) {
    HIPCPU_ENTER();
    return wait_value<std::uint32_t>(stream, ptr, value, flags, mask);
}

hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags,
                                uint64_t mask) {
    HIPCPU_ENTER();
    return wait_value<std::uint64_t>(stream, ptr, value, flags, mask);
}

hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags) {
    HIPCPU_ENTER();
    return write_value<std::uint32_t>(stream, ptr, value, flags);
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags) {
    HIPCPU_ENTER();
    return write_value<std::uint64_t>(stream, ptr, value, flags);
}

}  // extern "C"
