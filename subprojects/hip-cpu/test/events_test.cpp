// SPDX-License-Identifier: MIT
// Events: record, query, synchronize, elapsed time.
#include "check.hpp"

#include <chrono>
#include <latch>
#include <thread>

using namespace std::chrono_literals;

namespace {
struct Gate {
    std::latch open{1};
    static void wait(void *g) { static_cast<Gate *>(g)->open.wait(); }
};
}  // namespace

TEST_CASE("an event completes when its stream reaches it", "[events]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    hipEvent_t e;
    HIP_OK(hipEventCreate(&e));
    HIP_OK(hipEventQuery(e));  // never recorded: complete
    HIP_OK(hipEventSynchronize(e));

    Gate gate;
    HIP_OK(hipLaunchHostFunc(s, Gate::wait, &gate));
    HIP_OK(hipEventRecord(e, s));
    std::this_thread::sleep_for(20ms);
    CHECK(hipEventQuery(e) == hipErrorNotReady);
    gate.open.count_down();
    HIP_OK(hipEventSynchronize(e));
    HIP_OK(hipEventQuery(e));
    HIP_OK(hipEventDestroy(e));
    HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("elapsed time measures the stream between two records", "[events]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    hipEvent_t a, b;
    HIP_OK(hipEventCreate(&a));
    HIP_OK(hipEventCreateWithFlags(&b, hipEventBlockingSync));
    float ms = -1;
    CHECK(hipEventElapsedTime(&ms, a, b) == hipErrorInvalidHandle);  // not recorded

    Gate gate;
    HIP_OK(hipEventRecord(a, s));
    HIP_OK(hipLaunchHostFunc(s, Gate::wait, &gate));
    HIP_OK(hipLaunchHostFunc(s, [](void *) { std::this_thread::sleep_for(50ms); }, nullptr));
    HIP_OK(hipEventRecord(b, s));
    CHECK(hipEventElapsedTime(&ms, a, b) == hipErrorNotReady);
    gate.open.count_down();
    HIP_OK(hipEventSynchronize(b));
    HIP_OK(hipEventElapsedTime(&ms, a, b));
    CHECK(ms >= 49.0f);
    CHECK(ms < 5000.0f);
    HIP_OK(hipEventElapsedTime(&ms, b, a));
    CHECK(ms <= -49.0f);
    CHECK(hipEventElapsedTime(nullptr, a, b) == hipErrorInvalidValue);
    HIP_OK(hipEventDestroy(a));
    HIP_OK(hipEventDestroy(b));
    HIP_OK(hipStreamDestroy(s));
    (void)hipGetLastError();
}

TEST_CASE("timing-disabled events refuse elapsed time", "[events]") {
    hipEvent_t a, b;
    HIP_OK(hipEventCreateWithFlags(&a, hipEventDisableTiming));
    HIP_OK(hipEventCreate(&b));
    HIP_OK(hipEventRecord(a, nullptr));
    HIP_OK(hipEventRecord(b, nullptr));
    HIP_OK(hipEventSynchronize(b));
    HIP_OK(hipEventSynchronize(a));
    float ms = 0;
    CHECK(hipEventElapsedTime(&ms, a, b) == hipErrorInvalidHandle);
    HIP_OK(hipEventDestroy(a));
    HIP_OK(hipEventDestroy(b));
    (void)hipGetLastError();
}

TEST_CASE("event handle errors", "[events]") {
    hipEvent_t e;
    CHECK(hipEventCreate(nullptr) == hipErrorInvalidValue);
    CHECK(hipEventCreateWithFlags(&e, 0x80) == hipErrorInvalidValue);
    HIP_OK(hipEventCreate(&e));
    HIP_OK(hipEventDestroy(e));
    CHECK(hipEventDestroy(e) == hipErrorInvalidHandle);
    CHECK(hipEventQuery(e) == hipErrorInvalidHandle);
    CHECK(hipEventRecord(e, nullptr) == hipErrorInvalidHandle);
    CHECK(hipEventSynchronize(e) == hipErrorInvalidHandle);
    CHECK(hipEventDestroy(nullptr) == hipErrorInvalidHandle);
    (void)hipGetLastError();
}

TEST_CASE("destroying an event with a pending record is safe", "[events]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    hipEvent_t e;
    HIP_OK(hipEventCreate(&e));
    Gate gate;
    HIP_OK(hipLaunchHostFunc(s, Gate::wait, &gate));
    HIP_OK(hipEventRecord(e, s));
    HIP_OK(hipEventDestroy(e));
    gate.open.count_down();
    HIP_OK(hipStreamSynchronize(s));
    HIP_OK(hipStreamDestroy(s));
}
