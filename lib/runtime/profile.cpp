// SPDX-License-Identifier: MIT
#include "runtime/profile.hpp"

#include <cstdio>

#if defined(HIPFILE_HAVE_NVTX)
#include <nvtx3/nvToolsExt.h>
#elif defined(HIPFILE_HAVE_ROCTX)
#include <dlfcn.h>

#include <mutex>
#endif

namespace hipfile::engine::profile {

namespace {

std::atomic<std::uint64_t> g_begun{0};

#if defined(HIPFILE_HAVE_NVTX)
constexpr const char* kBackend = "nvtx";
// NVTX3 itself finds the profiler (NVTX_INJECTION64_PATH) at the first call; without one, a
// push is a cheap no-op.
void push(const char* name) noexcept { nvtxRangePushA(name); }
void pop() noexcept { nvtxRangePop(); }
#elif defined(HIPFILE_HAVE_ROCTX)
constexpr const char* kBackend = "roctx";
struct Roctx {
  int (*push)(const char*) = nullptr;
  int (*pop)() = nullptr;
};
// Loaded at the first range, never at library load, and never unloaded.
const Roctx& roctx() noexcept {
  static const Roctx r = [] {
    Roctx out;
    void* h = ::dlopen("libroctx64.so.4", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (h == nullptr) h = ::dlopen("libroctx64.so", RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (h == nullptr) return out;
    out.push = reinterpret_cast<int (*)(const char*)>(::dlsym(h, "roctxRangePushA"));
    out.pop = reinterpret_cast<int (*)()>(::dlsym(h, "roctxRangePop"));
    if (out.push == nullptr || out.pop == nullptr) out = Roctx{};
    return out;
  }();
  return r;
}
void push(const char* name) noexcept {
  if (roctx().push) roctx().push(name);
}
void pop() noexcept {
  if (roctx().pop) roctx().pop();
}
#else
constexpr const char* kBackend = "none";
void push(const char*) noexcept {}
void pop() noexcept {}
#endif

}  // namespace

void set_enabled(bool on) noexcept { detail::enabled.store(on, std::memory_order_relaxed); }
const char* backend() noexcept { return kBackend; }
std::uint64_t ranges_begun() noexcept { return g_begun.load(std::memory_order_relaxed); }

void detail::begin(const char* op, std::size_t size, off_t offset) noexcept {
  g_begun.fetch_add(1, std::memory_order_relaxed);
  char name[96];
  std::snprintf(name, sizeof name, "%s %zu B at %lld", op, size, static_cast<long long>(offset));
  push(name);
}

void detail::end() noexcept { pop(); }

}  // namespace hipfile::engine::profile
