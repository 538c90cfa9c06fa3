// SPDX-License-Identifier: MIT
// hipStreamWaitValue32 holds its stream until the word satisfies the condition.
#include "check.hpp"

#include <atomic>
#include <chrono>
#include <thread>

using namespace std::chrono_literals;

namespace {

void mark(void *p) { static_cast<std::atomic<int> *>(p)->store(1); }

// Enqueues a wait and a marker behind it; true when the marker ran only after `release`.
bool waits_for(unsigned flags, std::uint32_t initial, std::uint32_t value, std::uint32_t release,
               std::uint32_t mask = 0xFFFFFFFFu) {
    std::uint32_t *word = nullptr;
    REQUIRE(hipHostMalloc(reinterpret_cast<void **>(&word), sizeof *word, hipHostMallocMapped) == hipSuccess);
    void *dev = nullptr;
    REQUIRE(hipHostGetDevicePointer(&dev, word, 0) == hipSuccess);
    std::atomic_ref<std::uint32_t>(*word).store(initial);
    hipStream_t s = nullptr;
    REQUIRE(hipStreamCreate(&s) == hipSuccess);
    std::atomic<int> ran{0};
    REQUIRE(hipStreamWaitValue32(s, dev, value, flags, mask) == hipSuccess);
    REQUIRE(hipLaunchHostFunc(s, mark, &ran) == hipSuccess);
    std::this_thread::sleep_for(20ms);
    const bool held = ran.load() == 0 && hipStreamQuery(s) == hipErrorNotReady;
    std::atomic_ref<std::uint32_t>(*word).store(release);
    REQUIRE(hipStreamSynchronize(s) == hipSuccess);
    const bool done = ran.load() == 1;
    REQUIRE(hipStreamDestroy(s) == hipSuccess);
    REQUIRE(hipHostFree(word) == hipSuccess);
    return held && done;
}

}  // namespace

TEST_CASE("hipStreamWaitValue32 waits for each condition") {
    CHECK(waits_for(hipStreamWaitValueGte, 0, 5, 7));
    CHECK(waits_for(hipStreamWaitValueEq, 0, 3, 3));
    CHECK(waits_for(hipStreamWaitValueAnd, 0x10, 0x3, 0x2));
    CHECK(waits_for(hipStreamWaitValueNor, 0xFFFFFFFFu, 0xF0, 0x0, 0xFF));
    CHECK(waits_for(hipStreamWaitValueEq, 0x100, 0x1, 0x201, 0xFF));  // the mask applies
}

TEST_CASE("hipStreamWaitValue32 passes at once when the condition already holds") {
    std::uint32_t *word = nullptr;
    REQUIRE(hipHostMalloc(reinterpret_cast<void **>(&word), sizeof *word, 0) == hipSuccess);
    *word = 9;
    REQUIRE(hipStreamWaitValue32(nullptr, word, 9, hipStreamWaitValueEq, 0xFFFFFFFFu) == hipSuccess);
    REQUIRE(hipStreamSynchronize(nullptr) == hipSuccess);
    REQUIRE(hipHostFree(word) == hipSuccess);
}

TEST_CASE("hipStreamWaitValue32 rejects bad arguments") {
    std::uint32_t local = 0;
    CHECK(hipStreamWaitValue32(nullptr, nullptr, 0, hipStreamWaitValueEq, 0xFFFFFFFFu) == hipErrorInvalidValue);
    CHECK(hipStreamWaitValue32(nullptr, &local, 0, hipStreamWaitValueEq, 0xFFFFFFFFu) == hipErrorInvalidValue);
    void *word = nullptr;
    REQUIRE(hipHostMalloc(&word, 8, 0) == hipSuccess);
    CHECK(hipStreamWaitValue32(nullptr, word, 0, 7, 0xFFFFFFFFu) == hipErrorInvalidValue);
    CHECK(hipStreamWaitValue32(reinterpret_cast<hipStream_t>(&local), word, 0, 0, 0xFFFFFFFFu) ==
          hipErrorInvalidHandle);
    REQUIRE(hipHostFree(word) == hipSuccess);
    (void)hipGetLastError();
}
