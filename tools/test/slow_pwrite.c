// SPDX-License-Identifier: MIT
// LD_PRELOAD shim for tests: every pwrite sleeps SLOW_PWRITE_US_PER_MIB microseconds per MiB it
// writes before writing, so a copy takes at least a known time however fast the machine is,
// and a progress line that is redrawn on a timer is sure to be drawn mid-copy.
// Both symbols defined here: without the build's _FILE_OFFSET_BITS=64 the headers leave pwrite
// its own name rather than renaming it pwrite64.
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // RTLD_NEXT
#endif
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void pause_for(size_t bytes) {
  const char* text = getenv("SLOW_PWRITE_US_PER_MIB");
  const long long us = text ? atoll(text) * (long long)bytes / (1 << 20) : 0;
  struct timespec t = {us / 1000000, (us % 1000000) * 1000};
  while (us > 0 && nanosleep(&t, &t) != 0) {
  }
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (!real) {
    void* next = dlsym(RTLD_NEXT, "pwrite");
    memcpy(&real, &next, sizeof real);  // ISO C has no cast from object to function pointer
  }
  pause_for(n);
  return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) { return pwrite(fd, buf, n, (off_t)off); }
