// SPDX-License-Identifier: MIT
// Streams: one worker thread per stream runs its operations in order, so asynchronous calls
// really return before their work runs. The NULL stream is each device's legacy default stream.
#include "internal.hpp"

#include <pthread.h>

#include <array>
#include <exception>
#include <unordered_map>

// The public handle type. A Stream *is* its handle, so a hipStream_t converts back without a
// lookup table entry per call; the handle table below only serves validation.
struct ihipStream_t {};

namespace hipcpu {

struct Stream : ihipStream_t {
    int device;
    unsigned flags;
    bool is_null;

    std::mutex m;
    std::condition_variable work_cv;  // worker: something was queued, or stop
    std::condition_variable done_cv;  // waiters: `completed` advanced
    std::deque<Op> queue;
    std::uint64_t enqueued = 0;   // sequence number of the last op pushed
    std::uint64_t completed = 0;  // sequence number of the last op finished
    hipError_t sticky = hipSuccess;
    bool stop = false;
    std::thread worker;

    Stream(int dev, unsigned f, bool null) : device(dev), flags(f), is_null(null) {
        worker = std::thread([this] { run(); });
    }

    void run() {
        // Host functions run here and may reasonably ask for "the" device.
        set_current_device(device);
        for (;;) {
            Op op;
            {
                std::unique_lock l(m);
                work_cv.wait(l, [&] { return stop || !queue.empty(); });
                if (queue.empty()) return;  // stop requested and everything queued has run
                op = std::move(queue.front());
                queue.pop_front();
            }
            hipError_t e = op();
            op = nullptr;  // release held allocations before announcing completion
            {
                std::lock_guard l(m);
                if (e != hipSuccess && sticky == hipSuccess) sticky = e;
                ++completed;
            }
            done_cv.notify_all();
        }
    }

    std::uint64_t push(Op op) {
        std::uint64_t seq;
        {
            std::lock_guard l(m);
            queue.push_back(std::move(op));
            seq = ++enqueued;
        }
        work_cv.notify_one();
        return seq;
    }

    // Sequence number to wait for to cover everything pushed so far; 0 when nothing is pending.
    std::uint64_t pending() {
        std::lock_guard l(m);
        return completed < enqueued ? enqueued : 0;
    }

    void wait(std::uint64_t seq) {
        std::unique_lock l(m);
        done_cv.wait(l, [&] { return completed >= seq; });
    }

    // Runs queued work to completion, then ends the worker.
    void shutdown() {
        {
            std::lock_guard l(m);
            stop = true;
        }
        work_cv.notify_one();
        // A host function destroying its own stream cannot join itself; let the thread finish.
        if (worker.get_id() == std::this_thread::get_id())
            worker.detach();
        else
            worker.join();
    }
};

namespace {

constexpr int kMaxDevices = 16;

struct DeviceQueues {
    // Serialises enqueues that take part in legacy-stream ordering, so that the cross-stream
    // waits they add always point at earlier work (never a cycle).
    std::mutex m;
    StreamRef null_stream;              // created at first use
    std::vector<StreamRef> streams;     // created streams of this device, both kinds
};

struct StreamTable {
    std::mutex m;
    std::unordered_map<ihipStream_t *, StreamRef> handles;
    std::array<DeviceQueues, kMaxDevices> devices;
};

StreamTable *&table_slot() {
    static StreamTable *t = nullptr;
    return t;
}

// Leaked on purpose: worker threads must not outlive the objects they use at process exit, and
// joining them from a static destructor could hang on a blocked host function. A child of
// fork() has none of its parent's worker threads, so it starts with a table of its own: the
// parent's streams (the NULL streams included) would never run anything queued in it, and
// their handles are invalid in the child, as a GPU runtime's are.
StreamTable &table() {
    static std::once_flag made;
    std::call_once(made, [] {
        table_slot() = new StreamTable;
        (void)pthread_atfork(nullptr, nullptr, [] { table_slot() = new StreamTable; });
    });
    return *table_slot();
}

StreamRef null_stream(int dev) {
    DeviceQueues &d = table().devices[std::size_t(dev)];
    std::lock_guard g(d.m);
    if (!d.null_stream) d.null_stream = std::make_shared<Stream>(dev, 0u, true);
    return d.null_stream;
}

}  // namespace

StreamRef resolve_stream(hipStream_t s) {
    if (s == nullptr) return null_stream(current_device());
    StreamTable &t = table();
    std::lock_guard g(t.m);
    auto it = t.handles.find(s);
    return it == t.handles.end() ? nullptr : it->second;
}

std::uint64_t enqueue(const StreamRef &s, Op op) {
    if (s->flags & hipStreamNonBlocking) return s->push(std::move(op));
    DeviceQueues &d = table().devices[std::size_t(s->device)];
    std::lock_guard g(d.m);
    // Legacy default stream semantics: null-stream work waits for all earlier work of the
    // device's blocking streams; blocking-stream work waits for earlier null-stream work.
    std::vector<std::pair<StreamRef, std::uint64_t>> deps;
    if (s->is_null) {
        for (const StreamRef &b : d.streams)
            if (!(b->flags & hipStreamNonBlocking))
                if (std::uint64_t seq = b->pending()) deps.emplace_back(b, seq);
    } else if (d.null_stream) {
        if (std::uint64_t seq = d.null_stream->pending()) deps.emplace_back(d.null_stream, seq);
    }
    if (!deps.empty()) {
        op = [deps = std::move(deps), inner = std::move(op)]() {
            for (const auto &[stream, seq] : deps) stream->wait(seq);
            return inner();
        };
    }
    return s->push(std::move(op));
}

void wait_for(const StreamRef &s, std::uint64_t seq) { s->wait(seq); }

hipError_t take_stream_error(const StreamRef &s) {
    std::lock_guard l(s->m);
    hipError_t e = s->sticky;
    s->sticky = hipSuccess;
    return e;
}

namespace {

using Work = std::vector<std::pair<StreamRef, std::uint64_t>>;

// Appends each stream of `dev` (its NULL stream first) with the sequence number of the last
// work queued on it so far: what a wait for "everything queued until now" waits for.
void add_queued_work(int dev, Work &work) {
    DeviceQueues &d = table().devices[std::size_t(dev)];
    std::lock_guard g(d.m);
    if (d.null_stream) work.emplace_back(d.null_stream, d.null_stream->pending());
    for (const StreamRef &s : d.streams) work.emplace_back(s, s->pending());
}

}  // namespace

hipError_t synchronize_device(int dev) {
    Work work;
    add_queued_work(dev, work);
    hipError_t first = hipSuccess;
    for (const auto &[s, seq] : work) {
        s->wait(seq);
        hipError_t e = take_stream_error(s);
        if (first == hipSuccess) first = e;
    }
    return first;
}

void drain_all_devices() {
    Work work;
    for (int dev = 0; dev < device_count(); ++dev) add_queued_work(dev, work);
    for (const auto &[s, seq] : work) s->wait(seq);
}

}  // namespace hipcpu

using hipcpu::ret;
using hipcpu::StreamRef;

namespace {

// Shared by both create calls without going through the public entry (which would count twice).
hipError_t create_stream(hipStream_t *stream, unsigned flags) {
    if (stream == nullptr) return hipErrorInvalidValue;
    if (flags != hipStreamDefault && flags != hipStreamNonBlocking) return hipErrorInvalidValue;
    if (hipcpu::device_count() == 0) return hipErrorNoDevice;
    const int dev = hipcpu::current_device();
    std::shared_ptr<hipcpu::Stream> s;
    try {
        s = std::make_shared<hipcpu::Stream>(dev, flags, false);
    } catch (const std::exception &) {
        // No memory or no thread (RLIMIT_NPROC...): a resource failure, not a crash through C.
        return hipErrorOutOfMemory;
    }
    auto &t = hipcpu::table();
    {
        auto &d = t.devices[std::size_t(dev)];
        std::lock_guard g(d.m);
        d.streams.push_back(s);
    }
    {
        std::lock_guard g(t.m);
        t.handles.emplace(s.get(), s);
    }
    *stream = s.get();
    return hipSuccess;
}

}  // namespace

extern "C" {

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags) {
    HIPCPU_ENTER();
    return ret(create_stream(stream, flags));
}

hipError_t hipStreamCreate(hipStream_t *stream) {
    HIPCPU_ENTER();
    return ret(create_stream(stream, hipStreamDefault));
}

hipError_t hipStreamDestroy(hipStream_t stream) {
    HIPCPU_ENTER();
    if (stream == nullptr) return ret(hipErrorInvalidHandle);
    auto &t = hipcpu::table();
    StreamRef s;
    {
        std::lock_guard g(t.m);
        auto it = t.handles.find(stream);
        if (it == t.handles.end()) return ret(hipErrorInvalidHandle);
        s = std::move(it->second);
        t.handles.erase(it);
    }
    {
        auto &d = t.devices[std::size_t(s->device)];
        std::lock_guard g(d.m);
        std::erase(d.streams, s);
    }
    // Unlike CUDA (which returns at once and frees later), wait for the queued work here.
    s->shutdown();
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    s->wait(s->pending());
    return ret(hipcpu::take_stream_error(s));
}

hipError_t hipStreamQuery(hipStream_t stream) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    return ret(s->pending() != 0 ? hipErrorNotReady : hipSuccess);
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device) {
    HIPCPU_ENTER();
    if (device == nullptr) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    *device = s->device;
    return hipSuccess;
}

hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags) {
    HIPCPU_ENTER();
    if (flags == nullptr) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    *flags = s->flags;
    return hipSuccess;
}

hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData) {
    HIPCPU_ENTER();
    hipcpu::ContextShared context(hipcpu::context_lock());
    if (fn == nullptr) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    StreamRef s = hipcpu::resolve_stream(stream);
    if (!s) return ret(hipErrorInvalidHandle);
    hipcpu::enqueue(s, [fn, userData] {
        fn(userData);
        return hipSuccess;
    });
    return hipSuccess;
}

}  // extern "C"
