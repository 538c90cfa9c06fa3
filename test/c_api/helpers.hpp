// SPDX-License-Identifier: MIT
// Small owners for C API tests: each test leaves the driver closed and every fd closed, so
// tests stay independent inside one process.
#pragma once

#include "catch.hpp"
#include <fcntl.h>
#include <hipfile/hipfile.h>
#include <unistd.h>

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "test_support.hpp"

namespace hipfile::test {

/// Sets environment variables for one test (read at the next driver open) and unsets them after.
struct ScopedEnv {
  std::vector<std::string> names;
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (auto& [k, v] : vars) {
      ::setenv(k, v, 1);
      names.emplace_back(k);
    }
  }
  ~ScopedEnv() {
    for (auto& k : names) ::unsetenv(k.c_str());
  }
};

/// Closes the driver completely (however many references are held) on entry and exit.
struct ClosedDriver {
  ClosedDriver() { close_all(); }
  ~ClosedDriver() { close_all(); }
  static void close_all() {
    while (hipFileUseCount() > 0) (void)hipFileDriverClose();
  }
};

/// An fd opened on a path and registered; deregisters and closes on destruction.
struct Registered {
  int fd = -1;
  hipFileHandle_t handle = nullptr;
  Registered(const std::string& path, int flags) {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    hipFileDescr_t d{};
    d.type = hipFileHandleTypeOpaqueFD;
    d.handle.fd = fd;
    hipFileError_t e = hipFileHandleRegister(&handle, &d);
    REQUIRE(e.err == hipFileSuccess);
  }
  ~Registered() {
    hipFileHandleDeregister(handle);
    ::close(fd);
  }
  Registered(const Registered&) = delete;
  Registered& operator=(const Registered&) = delete;
};

inline hipFileError_t register_fd(int fd, hipFileHandle_t* out) {
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  return hipFileHandleRegister(out, &d);
}

/// Reads `size` bytes at `offset` of the registered file into device memory with a page of
/// guard bytes on both sides, and checks that the call returned what the file holds there (up to
/// its end) and that the guard bytes are untouched. `file` is the whole file's contents.
void check_padded_read(hipFileHandle_t handle, const std::vector<std::byte>& file, off_t offset, std::size_t size);

/// Whether the file system of `path` accepts open(O_DIRECT).
bool supports_odirect(const std::string& path);
/// Writes back and drops the file's pages from the page cache (posix_fadvise DONTNEED); false
/// where the file system keeps them (its first byte still cached, by a RWF_NOWAIT probe).
bool make_cold(const std::string& path);

/// hipMalloc's until an allocation of `size` lands at `want` (hip-cpu, like GPU runtimes, hands
/// a freed address out again); the others are freed. Null when none did: the caller skips.
void* allocate_at(void* want, std::size_t size);

/// Number of open descriptors in this process.
int open_fd_count();
/// Number of threads in this process.
int thread_count();
/// Number of this process's descriptors open on @p path (an absolute path without symlinks).
/// Unlike open_fd_count, it ignores what the HIP runtime opens (CUDA opens device nodes lazily).
int fds_on(const std::string& path);

}  // namespace hipfile::test
