// SPDX-License-Identifier: MIT
// hipMemcpy/hipMemset and their async forms. Every pointer is validated and translated when the
// call is made (as HIP does), so queued work only ever touches memory that was checked.
#include "internal.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

using hipcpu::AllocationRef;
using hipcpu::MemKind;

// One side of a copy, translated to an address the runtime may touch.
struct Side {
    unsigned char *addr = nullptr;
    AllocationRef hold;  // keeps a runtime allocation mapped until the work has run
};

// Translate p..p+n. Runtime allocations must contain the whole range: a copy that would run past
// one is refused rather than touching a neighbour. Registered ranges are the application's own
// memory and are used in place (copies may legitimately extend beyond them).
hipError_t translate(const void *p, std::size_t n, const AllocationRef &al, Side *out) {
    auto a = reinterpret_cast<std::uintptr_t>(p);
    // A ReadOnly registration is read from the copy of its pinned pages (see hipHostRegister).
    if (al && al->kind == MemKind::RegisteredHost && al->mapped != 0 && n <= al->size - (a - al->base)) {
        out->addr = al->rw + (a - al->base);
        out->hold = al;
        return hipSuccess;
    }
    if (!al || al->kind == MemKind::RegisteredHost) {
        out->addr = static_cast<unsigned char *>(const_cast<void *>(p));
        return hipSuccess;
    }
    std::size_t off = a - al->base;
    if (n > al->size - off) return hipErrorInvalidValue;
    out->addr = al->rw + off;
    out->hold = al;
    return hipSuccess;
}

// Is the pointer acceptable on the side of a copy that `kind` says is a device (or host) side?
// As on a system with unified addressing (CUDA and ROCm on 64-bit Linux), the kind is a hint:
// the runtime copies from and to what the pointers really are. A side named "device" must still
// be memory the device can address: device, managed, pinned or registered host memory (pageable
// memory a GPU cannot reach is refused); a side named "host" may be any memory, device memory
// included (the copy then runs device to device, as HIP does).
bool kind_fits(const AllocationRef &al, bool device_side) {
    if (device_side) return static_cast<bool>(al);
    return true;
}

// dst..dst+dn and src..src+sn: the bytes each side's copy touches (a 2-D copy's rows span more
// than the bytes it moves).
hipError_t prepare_copy(void *dst, std::size_t dn, const void *src, std::size_t sn, hipMemcpyKind kind, Side *d,
                        Side *s) {
    if (dst == nullptr || src == nullptr) return hipErrorInvalidValue;
    AllocationRef dal = hipcpu::find_allocation(dst);
    AllocationRef sal = hipcpu::find_allocation(src);
    switch (kind) {
    case hipMemcpyHostToHost:
        if (!kind_fits(sal, false) || !kind_fits(dal, false)) return hipErrorInvalidValue;
        break;
    case hipMemcpyHostToDevice:
        if (!kind_fits(sal, false) || !kind_fits(dal, true)) return hipErrorInvalidValue;
        break;
    case hipMemcpyDeviceToHost:
        if (!kind_fits(sal, true) || !kind_fits(dal, false)) return hipErrorInvalidValue;
        break;
    case hipMemcpyDeviceToDevice:
        if (!kind_fits(sal, true) || !kind_fits(dal, true)) return hipErrorInvalidValue;
        break;
    case hipMemcpyDefault:
        break;  // unified addressing: the map tells what each pointer is
    default:
        return hipErrorInvalidMemcpyDirection;
    }
    if (hipError_t e = translate(dst, dn, dal, d)) return e;
    return translate(src, sn, sal, s);
}

hipError_t prepare_set(void *dst, std::size_t n, Side *d) {
    if (dst == nullptr) return hipErrorInvalidValue;
    AllocationRef al = hipcpu::find_allocation(dst);
    // Memory the runtime does not know (pageable host memory) cannot be a memset target.
    if (!al) return hipErrorInvalidValue;
    return translate(dst, n, al, d);
}

hipcpu::Op copy_op(Side d, Side s, std::size_t n) {
    // memmove: device-to-device copies within one allocation may overlap.
    return [d = std::move(d), s = std::move(s), n] {
        std::memmove(d.addr, s.addr, n);
        return hipSuccess;
    };
}

// Rows of a 2-D copy: each side's rows checked as one range, from the first row's start to the
// last row's end.
hipcpu::Op copy_rows_op(Side d, std::size_t dpitch, Side s, std::size_t spitch, std::size_t width,
                        std::size_t height) {
    return [d = std::move(d), s = std::move(s), dpitch, spitch, width, height] {
        for (std::size_t r = 0; r < height; ++r) std::memmove(d.addr + r * dpitch, s.addr + r * spitch, width);
        return hipSuccess;
    };
}

hipcpu::Op set_op(Side d, int value, std::size_t n) {
    return [d = std::move(d), value, n] {
        std::memset(d.addr, value, n);
        return hipSuccess;
    };
}

// CUDA returns from a hipMemcpy whose source is pageable host memory once the source has been
// staged, before the copy has reached the device; later work on a non-blocking stream may run
// first. HIPCPU_PAGEABLE_DMA_DELAY_US=N models that: such a copy stages its source, returns, and
// lands N microseconds later in NULL-stream order. Unset or 0: the copy is complete on return.
unsigned pageable_dma_delay_us() {
    static const unsigned us = [] {
        const char *v = std::getenv("HIPCPU_PAGEABLE_DMA_DELAY_US");
        return v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : 0u;
    }();
    return us;
}

// The staged copy of a pageable source, landing after the delay.
hipcpu::Op late_copy_op(Side d, const void *src, std::size_t n, unsigned delay_us) {
    auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char *>(src),
                                                               static_cast<const unsigned char *>(src) + n);
    return [d = std::move(d), staged, delay_us] {
        std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
        std::memcpy(d.addr, staged->data(), staged->size());
        return hipSuccess;
    };
}

// Run an operation on the current device's NULL stream and wait for it: the synchronous calls
// keep their place in stream order (and legacy-stream semantics) exactly like HIP's.
hipError_t run_sync(hipcpu::Op op) {
    hipcpu::StreamRef s = hipcpu::resolve_stream(nullptr);
    std::uint64_t seq = hipcpu::enqueue(s, std::move(op));
    hipcpu::wait_for(s, seq);
    return hipSuccess;
}

}  // namespace

using hipcpu::ret;

extern "C" {

hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    if (sizeBytes == 0) return hipSuccess;
    Side d, s;
    if (hipError_t e = prepare_copy(dst, sizeBytes, src, sizeBytes, kind, &d, &s)) return ret(e);
    const unsigned delay = pageable_dma_delay_us();
    if (delay != 0 && !hipcpu::find_allocation(src) && d.hold && d.hold->kind == MemKind::Device) {
        hipcpu::enqueue(hipcpu::resolve_stream(nullptr), late_copy_op(std::move(d), src, sizeBytes, delay));
        return hipSuccess;
    }
    return ret(run_sync(copy_op(std::move(d), std::move(s), sizeBytes)));
}

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream) {
    HIPCPU_ENTER();
    hipcpu::ContextShared context(hipcpu::context_lock());
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::StreamRef st = hipcpu::resolve_stream(stream);
    if (!st) return ret(hipErrorInvalidHandle);
    if (sizeBytes == 0) return hipSuccess;
    Side d, s;
    if (hipError_t e = prepare_copy(dst, sizeBytes, src, sizeBytes, kind, &d, &s)) return ret(e);
    hipcpu::enqueue(st, copy_op(std::move(d), std::move(s), sizeBytes));
    return hipSuccess;
}

hipError_t hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream) {
    HIPCPU_ENTER();
    hipcpu::ContextShared context(hipcpu::context_lock());
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::StreamRef st = hipcpu::resolve_stream(stream);
    if (!st) return ret(hipErrorInvalidHandle);
    if (width > dpitch || width > spitch) return ret(hipErrorInvalidPitchValue);
    if (width == 0 || height == 0) return hipSuccess;
    if (height - 1 > (SIZE_MAX - width) / std::max(dpitch, spitch)) return ret(hipErrorInvalidValue);
    Side d, s;
    if (hipError_t e = prepare_copy(dst, (height - 1) * dpitch + width, src, (height - 1) * spitch + width, kind, &d, &s))
        return ret(e);
    hipcpu::enqueue(st, copy_rows_op(std::move(d), dpitch, std::move(s), spitch, width, height));
    return hipSuccess;
}

hipError_t hipMemset(void *dst, int value, size_t sizeBytes) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    if (sizeBytes == 0) return hipSuccess;
    Side d;
    if (hipError_t e = prepare_set(dst, sizeBytes, &d)) return ret(e);
    return ret(run_sync(set_op(std::move(d), value, sizeBytes)));
}

hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream) {
    HIPCPU_ENTER();
    hipcpu::ContextShared context(hipcpu::context_lock());
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    hipcpu::StreamRef st = hipcpu::resolve_stream(stream);
    if (!st) return ret(hipErrorInvalidHandle);
    if (sizeBytes == 0) return hipSuccess;
    Side d;
    if (hipError_t e = prepare_set(dst, sizeBytes, &d)) return ret(e);
    hipcpu::enqueue(st, set_op(std::move(d), value, sizeBytes));
    return hipSuccess;
}

}  // extern "C"
