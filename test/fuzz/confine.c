// SPDX-License-Identifier: MIT
// open(2) and open64(2) for the index fuzz target: while confined to a folder, a path outside it
// (or one with a ".." component) is refused with EACCES instead of opened. An index names its
// shards, and the reader must not be able to reach past the target's private folder whatever
// the input says (absolute names, "../", device files, FIFOs that would block). The definitions
// here take the place of libc's for every direct call in the program; libc's own internal opens
// (libFuzzer reading its corpus through fopen) do not come here.
#undef _FILE_OFFSET_BITS  // open and open64 are declared as two functions, not one redirected
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char* confined_dir;
static size_t confined_len;
static unsigned long refused;

// Confines later opens to @p dir (an absolute path without symlinks below it); NULL lifts it.
void fuzz_confine_opens(const char* dir) {
  confined_dir = dir;
  confined_len = dir ? strlen(dir) : 0;
}

// The opens refused so far.
unsigned long fuzz_refused_opens(void) { return refused; }

// Inside the folder and free of "/.." (which also refuses names that merely start with "..":
// stricter than needed, never looser).
static int inside(const char* path) {
  if (strncmp(path, confined_dir, confined_len) != 0 || path[confined_len] != '/') return 0;
  return strstr(path + confined_len, "/..") == NULL;
}

static int confined_open(const char* path, int flags, int mode) {
  if (confined_dir && !inside(path)) {
    ++refused;
    errno = EACCES;
    return -1;
  }
  return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static int mode_of(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, int) : 0;
}

int open(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = mode_of(flags, ap);
  va_end(ap);
  return confined_open(path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  const int mode = mode_of(flags, ap);
  va_end(ap);
  return confined_open(path, flags, mode);
}
