// SPDX-License-Identifier: MIT
#include "gpu/recent_pointers.hpp"

#include <array>
#include <cstdint>

namespace hipfile::gpu {

namespace {

struct Recent {
  PointerInfo info;
  std::uint64_t id = 0;  // 0: empty
};

// A few entries, so that a loop over several buffers (double buffering, a buffer per layer)
// stays answered; replaced in turn.
constexpr std::size_t kEntries = 4;

struct RecentTable {
  std::array<Recent, kEntries> entries{};
  std::size_t next = 0;  // the entry replaced next
};

thread_local RecentTable recent;

bool inside(const PointerInfo& info, const void* ptr) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(ptr);
  const auto base = reinterpret_cast<std::uintptr_t>(info.alloc_base);
  return at >= base && at - base < info.alloc_size;
}

void remember(const PointerInfo& info, std::uint64_t id) noexcept {
  RecentTable& t = recent;
  t.entries[t.next] = Recent{info, id};
  t.next = (t.next + 1) % kEntries;
}

}  // namespace

hipError_t query_pointer_recent(const void* ptr, PointerInfo& out) noexcept {
  std::uint64_t id = 0;  // of the allocation at ptr now, asked once when an entry contains ptr
  bool asked = false;
  for (Recent& r : recent.entries) {
    if (r.id == 0 || !inside(r.info, ptr)) continue;
    if (!asked) id = allocation_id(ptr), asked = true;
    if (id == r.id) {
      out = r.info;
      return hipSuccess;
    }
    r.id = 0;  // that allocation was freed: forgotten
  }
  const hipError_t e = query_pointer(ptr, out);
  if (e != hipSuccess || out.kind != MemKind::Device || out.alloc_base == nullptr) return e;
  if (!asked) id = allocation_id(ptr);
  if (id != 0) remember(out, id);
  return hipSuccess;
}

void forget_recent_pointers() noexcept { recent = RecentTable{}; }

}  // namespace hipfile::gpu
