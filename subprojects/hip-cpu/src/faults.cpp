// SPDX-License-Identifier: MIT
// Call counting and fault injection (the <hip/hip_cpu.h> test interface).
#include "internal.hpp"

#include <hip/hip_cpu.h>

#include <list>
#include <map>
#include <string>

namespace hipcpu {

struct ApiSlot {
    std::string name;
    std::atomic<unsigned long long> calls{0};
};

namespace {

struct Fault {
    std::string api;
    unsigned skip;   // calls to let through before failing
    unsigned fails;  // calls still to fail
    hipError_t err;
};

struct FaultState {
    std::mutex m;
    // std::map keeps node addresses stable, so the per-call-site static references stay valid.
    std::map<std::string, ApiSlot, std::less<>> slots;
    std::list<Fault> faults;  // in arming order: the earliest armed fires first
    // Lets the common case (nothing armed) skip the lock on every API call.
    std::atomic<bool> any_armed{false};
};

// Leaked on purpose: API calls may come from worker threads or atexit handlers after static
// destruction would have run.
FaultState &state() {
    static FaultState *s = new FaultState;
    return *s;
}

}  // namespace

ApiSlot &api_slot(const char *name) {
    FaultState &s = state();
    std::lock_guard g(s.m);
    auto it = s.slots.find(name);
    if (it == s.slots.end()) {
        it = s.slots.try_emplace(name).first;
        it->second.name = name;
    }
    return it->second;
}

hipError_t api_enter(ApiSlot &slot) noexcept {
    slot.calls.fetch_add(1, std::memory_order_relaxed);
    FaultState &s = state();
    if (!s.any_armed.load(std::memory_order_acquire)) return hipSuccess;
    std::lock_guard g(s.m);
    hipError_t result = hipSuccess;
    // Every matching fault sees the call (each counts its API's calls independently); the first
    // that is due decides the outcome.
    for (auto it = s.faults.begin(); it != s.faults.end();) {
        if (it->api != slot.name) {
            ++it;
            continue;
        }
        if (it->skip > 0) {
            --it->skip;
            ++it;
            continue;
        }
        if (result == hipSuccess) {
            result = it->err;
            if (--it->fails == 0) {
                it = s.faults.erase(it);
                continue;
            }
        }
        ++it;
    }
    s.any_armed.store(!s.faults.empty(), std::memory_order_release);
    return result;
}

}  // namespace hipcpu

extern "C" {

void hipcpuInjectFault(const char *api, unsigned nth, unsigned count, hipError_t err) {
    if (api == nullptr) return;
    auto &s = hipcpu::state();
    std::lock_guard g(s.m);
    s.faults.push_back({api, nth == 0 ? 0 : nth - 1, count == 0 ? 1 : count, err});
    s.any_armed.store(true, std::memory_order_release);
}

void hipcpuClearFaults(void) {
    auto &s = hipcpu::state();
    std::lock_guard g(s.m);
    s.faults.clear();
    s.any_armed.store(false, std::memory_order_release);
}

unsigned long long hipcpuCallCount(const char *api) {
    if (api == nullptr) return 0;
    auto &s = hipcpu::state();
    std::lock_guard g(s.m);
    auto it = s.slots.find(api);
    return it == s.slots.end() ? 0 : it->second.calls.load(std::memory_order_relaxed);
}

void hipcpuResetCallCounts(void) {
    auto &s = hipcpu::state();
    std::lock_guard g(s.m);
    for (auto &[name, slot] : s.slots) slot.calls.store(0, std::memory_order_relaxed);
}

}  // extern "C"
