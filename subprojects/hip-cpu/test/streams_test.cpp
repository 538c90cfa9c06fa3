// SPDX-License-Identifier: MIT
// Streams are really asynchronous, run in order, and follow legacy default-stream semantics.
#include "check.hpp"

#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

namespace {

// A host function that blocks its stream until the test opens the gate.
struct Gate {
    std::latch open{1};
    static void wait(void *g) { static_cast<Gate *>(g)->open.wait(); }
    void release() { open.count_down(); }
};

struct Log {
    std::mutex m;
    std::vector<int> order;
    void add(int v) {
        std::lock_guard l(m);
        order.push_back(v);
    }
    std::vector<int> get() {
        std::lock_guard l(m);
        return order;
    }
};

struct Entry {
    Log *log;
    int value;
    static void run(void *e) {
        auto *self = static_cast<Entry *>(e);
        self->log->add(self->value);
    }
};

// Gives queued work a chance to run (wrongly) before the test checks that it has not.
void settle() { std::this_thread::sleep_for(50ms); }

}  // namespace

TEST_CASE("async work really is asynchronous", "[streams]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 64));
    HIP_OK(hipMemset(d, 0x42, 64));
    std::vector<unsigned char> host(64, 0);

    Gate gate;
    HIP_OK(hipLaunchHostFunc(s, Gate::wait, &gate));
    HIP_OK(hipMemcpyAsync(host.data(), d, 64, hipMemcpyDeviceToHost, s));
    CHECK(hipStreamQuery(s) == hipErrorNotReady);
    settle();
    CHECK(hipStreamQuery(s) == hipErrorNotReady);
    CHECK(host[0] == 0);  // the copy is queued behind the blocked host function

    gate.release();
    HIP_OK(hipStreamSynchronize(s));
    CHECK(host[0] == 0x42);
    CHECK(host[63] == 0x42);
    HIP_OK(hipStreamQuery(s));
    HIP_OK(hipFree(d));
    HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("work on one stream runs in order, on a worker thread", "[streams]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    Log log;
    std::vector<Entry> entries;
    entries.reserve(200);
    for (int i = 0; i < 200; ++i) entries.push_back({&log, i});
    for (auto &e : entries) HIP_OK(hipLaunchHostFunc(s, Entry::run, &e));
    HIP_OK(hipStreamSynchronize(s));
    auto order = log.get();
    REQUIRE(order.size() == 200);
    for (int i = 0; i < 200; ++i) CHECK(order[std::size_t(i)] == i);

    static std::thread::id seen;
    HIP_OK(hipLaunchHostFunc(s, [](void *) { seen = std::this_thread::get_id(); }, nullptr));
    HIP_OK(hipStreamSynchronize(s));
    CHECK(seen != std::this_thread::get_id());
    HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("copies and host functions interleave in order", "[streams]") {
    hipStream_t s;
    HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
    int *d = nullptr;
    HIP_OK(hipMalloc(reinterpret_cast<void **>(&d), sizeof(int) * 100));
    std::vector<int> src(100), dst(100, -1);
    for (int i = 0; i < 100; ++i) src[std::size_t(i)] = i;
    for (int i = 0; i < 100; ++i) HIP_OK(hipMemcpyAsync(d + i, &src[std::size_t(i)], sizeof(int), hipMemcpyHostToDevice, s));
    HIP_OK(hipMemcpyAsync(dst.data(), d, sizeof(int) * 100, hipMemcpyDeviceToHost, s));
    HIP_OK(hipStreamSynchronize(s));
    CHECK(dst == src);
    HIP_OK(hipFree(d));
    HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("stream properties and handles", "[streams]") {
    hipStream_t a, b;
    HIP_OK(hipStreamCreate(&a));
    HIP_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
    unsigned flags = 99;
    HIP_OK(hipStreamGetFlags(a, &flags));
    CHECK(flags == hipStreamDefault);
    HIP_OK(hipStreamGetFlags(b, &flags));
    CHECK(flags == hipStreamNonBlocking);
    HIP_OK(hipStreamGetFlags(nullptr, &flags));
    CHECK(flags == hipStreamDefault);
    hipDevice_t dev = -5;
    HIP_OK(hipStreamGetDevice(a, &dev));
    CHECK(dev == 0);
    HIP_OK(hipStreamGetDevice(nullptr, &dev));
    CHECK(dev == 0);
    HIP_OK(hipStreamQuery(nullptr));
    HIP_OK(hipStreamSynchronize(nullptr));

    CHECK(hipStreamCreateWithFlags(&a, 7) == hipErrorInvalidValue);
    CHECK(hipStreamCreate(nullptr) == hipErrorInvalidValue);
    CHECK(hipStreamGetFlags(a, nullptr) == hipErrorInvalidValue);
    CHECK(hipLaunchHostFunc(a, nullptr, nullptr) == hipErrorInvalidValue);
    HIP_OK(hipStreamDestroy(a));
    HIP_OK(hipStreamDestroy(b));
    CHECK(hipStreamDestroy(a) == hipErrorInvalidHandle);
    CHECK(hipStreamDestroy(nullptr) == hipErrorInvalidHandle);
    CHECK(hipStreamQuery(a) == hipErrorInvalidHandle);
    CHECK(hipStreamSynchronize(a) == hipErrorInvalidHandle);
    CHECK(hipStreamGetDevice(a, &dev) == hipErrorInvalidHandle);
    (void)hipGetLastError();
}

TEST_CASE("hipStreamDestroy waits for queued work", "[streams]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    static std::atomic<int> ran{0};
    ran = 0;
    HIP_OK(hipLaunchHostFunc(s, [](void *) { std::this_thread::sleep_for(50ms); ++ran; }, nullptr));
    HIP_OK(hipLaunchHostFunc(s, [](void *) { ++ran; }, nullptr));
    HIP_OK(hipStreamDestroy(s));
    CHECK(ran == 2);
}

TEST_CASE("hipStreamWaitEvent orders work across streams", "[streams][events]") {
    hipStream_t a, b;
    HIP_OK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
    HIP_OK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
    hipEvent_t e;
    HIP_OK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
    Gate gate;
    Log log;
    Entry first{&log, 1}, second{&log, 2};
    HIP_OK(hipLaunchHostFunc(a, Gate::wait, &gate));
    HIP_OK(hipLaunchHostFunc(a, Entry::run, &first));
    HIP_OK(hipEventRecord(e, a));
    HIP_OK(hipStreamWaitEvent(b, e, 0));
    HIP_OK(hipLaunchHostFunc(b, Entry::run, &second));
    // Re-recording after the wait was enqueued must not move what b waits for.
    HIP_OK(hipEventRecord(e, b));
    settle();
    CHECK(log.get().empty());
    CHECK(hipStreamQuery(b) == hipErrorNotReady);
    gate.release();
    HIP_OK(hipStreamSynchronize(b));
    CHECK(log.get() == std::vector<int>{1, 2});
    CHECK(hipStreamWaitEvent(b, e, 1) == hipErrorInvalidValue);
    HIP_OK(hipStreamSynchronize(a));
    HIP_OK(hipEventDestroy(e));
    HIP_OK(hipStreamDestroy(a));
    HIP_OK(hipStreamDestroy(b));
    (void)hipGetLastError();
}

TEST_CASE("waiting on a never-recorded event is a no-op", "[streams][events]") {
    hipEvent_t e;
    HIP_OK(hipEventCreate(&e));
    HIP_OK(hipStreamWaitEvent(nullptr, e, 0));
    HIP_OK(hipStreamSynchronize(nullptr));
    HIP_OK(hipEventDestroy(e));
}

TEST_CASE("the NULL stream waits for blocking streams", "[streams][legacy]") {
    hipStream_t blocking, nonblocking;
    HIP_OK(hipStreamCreate(&blocking));
    HIP_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
    Gate gate;
    Log log;
    Entry on_null{&log, 1}, on_nonblocking{&log, 2};
    HIP_OK(hipLaunchHostFunc(blocking, Gate::wait, &gate));
    HIP_OK(hipLaunchHostFunc(nullptr, Entry::run, &on_null));
    HIP_OK(hipLaunchHostFunc(nonblocking, Entry::run, &on_nonblocking));
    HIP_OK(hipStreamSynchronize(nonblocking));  // exempt: runs despite the blocked stream
    settle();
    CHECK(log.get() == std::vector<int>{2});
    CHECK(hipStreamQuery(nullptr) == hipErrorNotReady);
    gate.release();
    HIP_OK(hipStreamSynchronize(nullptr));
    CHECK(log.get() == std::vector<int>{2, 1});
    HIP_OK(hipStreamDestroy(blocking));
    HIP_OK(hipStreamDestroy(nonblocking));
}

TEST_CASE("blocking streams wait for earlier NULL-stream work", "[streams][legacy]") {
    hipStream_t blocking, nonblocking;
    HIP_OK(hipStreamCreate(&blocking));
    HIP_OK(hipStreamCreateWithFlags(&nonblocking, hipStreamNonBlocking));
    Gate gate;
    Log log;
    Entry on_blocking{&log, 1}, on_nonblocking{&log, 2};
    HIP_OK(hipLaunchHostFunc(nullptr, Gate::wait, &gate));
    HIP_OK(hipLaunchHostFunc(blocking, Entry::run, &on_blocking));
    HIP_OK(hipLaunchHostFunc(nonblocking, Entry::run, &on_nonblocking));
    HIP_OK(hipStreamSynchronize(nonblocking));
    settle();
    CHECK(log.get() == std::vector<int>{2});
    CHECK(hipStreamQuery(blocking) == hipErrorNotReady);
    gate.release();
    HIP_OK(hipStreamSynchronize(blocking));
    CHECK(log.get() == std::vector<int>{2, 1});
    HIP_OK(hipStreamDestroy(blocking));
    HIP_OK(hipStreamDestroy(nonblocking));
}

TEST_CASE("hipMemcpy is ordered after blocking-stream work", "[streams][legacy]") {
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    void *d = nullptr;
    HIP_OK(hipMalloc(&d, 16));
    std::vector<unsigned char> src(16, 5), dst(16, 0);
    Gate gate;
    HIP_OK(hipLaunchHostFunc(s, Gate::wait, &gate));
    HIP_OK(hipMemcpyAsync(d, src.data(), 16, hipMemcpyHostToDevice, s));
    std::thread opener([&] {
        settle();
        gate.release();
    });
    HIP_OK(hipMemcpy(dst.data(), d, 16, hipMemcpyDeviceToHost));  // must see the async copy
    opener.join();
    CHECK(dst == src);
    HIP_OK(hipFree(d));
    HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("hipDeviceSynchronize waits for every stream of the device", "[streams]") {
    std::vector<hipStream_t> ss(3);
    static std::atomic<int> ran{0};
    ran = 0;
    for (auto &s : ss) {
        HIP_OK(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
        HIP_OK(hipLaunchHostFunc(s, [](void *) { std::this_thread::sleep_for(30ms); ++ran; }, nullptr));
    }
    HIP_OK(hipLaunchHostFunc(nullptr, [](void *) { std::this_thread::sleep_for(30ms); ++ran; }, nullptr));
    HIP_OK(hipDeviceSynchronize());
    CHECK(ran == 4);
    for (auto &s : ss) HIP_OK(hipStreamDestroy(s));
}

TEST_CASE("streams are usable from many threads at once", "[streams][threads]") {
    std::atomic<int> failures{0};
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&, t] {
            hipStream_t s;
            if (hipStreamCreate(&s) != hipSuccess) {
                ++failures;
                return;
            }
            void *d = nullptr;
            if (hipMalloc(&d, 4096) != hipSuccess) ++failures;
            std::vector<unsigned char> src(4096, static_cast<unsigned char>(t)), dst(4096);
            for (int i = 0; i < 50; ++i) {
                if (hipMemcpyAsync(d, src.data(), 4096, hipMemcpyHostToDevice, s) != hipSuccess) ++failures;
                if (hipMemcpyAsync(dst.data(), d, 4096, hipMemcpyDeviceToHost, s) != hipSuccess) ++failures;
                if (hipMemcpy(dst.data(), d, 4096, hipMemcpyDeviceToHost) != hipSuccess) ++failures;
            }
            if (hipStreamSynchronize(s) != hipSuccess) ++failures;
            if (dst != src) ++failures;
            if (hipFree(d) != hipSuccess) ++failures;
            if (hipStreamDestroy(s) != hipSuccess) ++failures;
        });
    for (auto &t : ts) t.join();
    CHECK(failures == 0);
}
