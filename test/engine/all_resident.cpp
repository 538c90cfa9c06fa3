// SPDX-License-Identifier: MIT
#include "all_resident.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

namespace hipfile::test {
std::atomic<bool> g_all_resident{false};
}  // namespace hipfile::test

extern "C" int mincore(void* addr, size_t length, unsigned char* vec) {
  using Real = int (*)(void*, size_t, unsigned char*);
  static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "mincore"));
  const int rc = real(addr, length, vec);
  if (rc == 0 && hipfile::test::g_all_resident) {
    const long page = ::sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < (length + page - 1) / page; ++i) vec[i] |= 1;
  }
  return rc;
}
