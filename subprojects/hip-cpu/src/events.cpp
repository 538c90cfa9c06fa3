// SPDX-License-Identifier: MIT
// Events: a record is an operation on a stream that stamps the time when the stream reaches it.
#include "internal.hpp"

#include <chrono>
#include <unordered_map>

namespace {

using Clock = std::chrono::steady_clock;

// One hipEventRecord. Kept separate from the event so that re-recording, or destroying the
// event, never disturbs work that already waits on an earlier record.
struct RecordPoint {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    Clock::time_point when;

    void complete() {
        {
            std::lock_guard l(m);
            when = Clock::now();
            done = true;
        }
        cv.notify_all();
    }
    void wait() {
        std::unique_lock l(m);
        cv.wait(l, [&] { return done; });
    }
    bool is_done() {
        std::lock_guard l(m);
        return done;
    }
};
using PointRef = std::shared_ptr<RecordPoint>;

}  // namespace

struct ihipEvent_t {
    unsigned flags;
    std::mutex m;
    PointRef last;  // the latest record; null until the first hipEventRecord
    explicit ihipEvent_t(unsigned f) : flags(f) {}

    PointRef current() {
        std::lock_guard l(m);
        return last;
    }
};

namespace {

struct EventTable {
    std::mutex m;
    std::unordered_map<ihipEvent_t *, std::shared_ptr<ihipEvent_t>> handles;
};

EventTable &table() {
    static EventTable *t = new EventTable;  // leaked on purpose, like the other tables
    return *t;
}

std::shared_ptr<ihipEvent_t> resolve(hipEvent_t e) {
    if (e == nullptr) return nullptr;
    EventTable &t = table();
    std::lock_guard g(t.m);
    auto it = t.handles.find(e);
    return it == t.handles.end() ? nullptr : it->second;
}

hipError_t create_event(hipEvent_t *event, unsigned flags) {
    if (event == nullptr) return hipErrorInvalidValue;
    if ((flags & ~unsigned(hipEventBlockingSync | hipEventDisableTiming)) != 0) return hipErrorInvalidValue;
    if (hipcpu::device_count() == 0) return hipErrorNoDevice;
    auto ev = std::make_shared<ihipEvent_t>(flags);
    EventTable &t = table();
    std::lock_guard g(t.m);
    t.handles.emplace(ev.get(), ev);
    *event = ev.get();
    return hipSuccess;
}

}  // namespace

using hipcpu::ret;

extern "C" {

hipError_t hipEventCreate(hipEvent_t *event) {
    HIPCPU_ENTER();
    return ret(create_event(event, hipEventDefault));
}

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags) {
    HIPCPU_ENTER();
    return ret(create_event(event, flags));
}

hipError_t hipEventDestroy(hipEvent_t event) {
    HIPCPU_ENTER();
    if (event == nullptr) return ret(hipErrorInvalidHandle);
    EventTable &t = table();
    std::lock_guard g(t.m);
    // Pending records and waits hold their RecordPoint, so they finish normally.
    if (t.handles.erase(event) == 0) return ret(hipErrorInvalidHandle);
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
    HIPCPU_ENTER();
    auto ev = resolve(event);
    if (!ev) return ret(hipErrorInvalidHandle);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    auto point = std::make_shared<RecordPoint>();
    {
        // Set before enqueueing, so a query right after this call already sees the new record.
        std::lock_guard l(ev->m);
        ev->last = point;
    }
    hipcpu::enqueue(s, [point] {
        point->complete();
        return hipSuccess;
    });
    return hipSuccess;
}

hipError_t hipEventSynchronize(hipEvent_t event) {
    HIPCPU_ENTER();
    auto ev = resolve(event);
    if (!ev) return ret(hipErrorInvalidHandle);
    // Never recorded: nothing to wait for (HIP and CUDA answer success).
    if (PointRef p = ev->current()) p->wait();
    return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t event) {
    HIPCPU_ENTER();
    auto ev = resolve(event);
    if (!ev) return ret(hipErrorInvalidHandle);
    PointRef p = ev->current();
    return ret(p && !p->is_done() ? hipErrorNotReady : hipSuccess);
}

hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop) {
    HIPCPU_ENTER();
    if (ms == nullptr) return ret(hipErrorInvalidValue);
    auto a = resolve(start);
    auto b = resolve(stop);
    if (!a || !b) return ret(hipErrorInvalidHandle);
    if ((a->flags | b->flags) & hipEventDisableTiming) return ret(hipErrorInvalidHandle);
    PointRef pa = a->current();
    PointRef pb = b->current();
    if (!pa || !pb) return ret(hipErrorInvalidHandle);  // never recorded
    if (!pa->is_done() || !pb->is_done()) return ret(hipErrorNotReady);
    Clock::time_point ta, tb;
    {
        std::lock_guard l(pa->m);
        ta = pa->when;
    }
    {
        std::lock_guard l(pb->m);
        tb = pb->when;
    }
    *ms = std::chrono::duration<float, std::milli>(tb - ta).count();
    return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
    HIPCPU_ENTER();
    if (flags != 0) return ret(hipErrorInvalidValue);
    auto ev = resolve(event);
    if (!ev) return ret(hipErrorInvalidHandle);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    // Waits for the record as of now; later re-records of the event do not move this wait.
    PointRef p = ev->current();
    if (!p) return hipSuccess;
    hipcpu::enqueue(s, [p] {
        p->wait();
        return hipSuccess;
    });
    return hipSuccess;
}

}  // extern "C"
