// SPDX-License-Identifier: MIT
// Helpers of the async suite: an open driver, a registered file, streams, a stream gate.
#pragma once

#include <catch2/catch.hpp>
#include <hipfile/hipfile.h>
#include <hip/hip_runtime_api.h>

#include <fcntl.h>
#include <unistd.h>

#include <latch>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace hipfile::test {

#define HF_OK(expr) REQUIRE((expr).err == hipFileSuccess)

struct DriverScope {
  DriverScope() { HF_OK(hipFileDriverOpen()); }
  ~DriverScope() { (void)hipFileDriverClose(); }
};

struct OpenFile {
  int fd = -1;
  hipFileHandle_t fh = nullptr;
  explicit OpenFile(const std::string& path, int flags = O_RDWR) {
    fd = ::open(path.c_str(), flags);
    REQUIRE(fd >= 0);
    hipFileDescr_t d{};
    d.type = hipFileHandleTypeOpaqueFD;
    d.handle.fd = fd;
    HF_OK(hipFileHandleRegister(&fh, &d));
  }
  ~OpenFile() {
    if (fh) hipFileHandleDeregister(fh);
    if (fd >= 0) ::close(fd);
  }
};

struct Stream {
  hipStream_t s = nullptr;
  Stream() { HIP_CHECK(hipStreamCreate(&s)); }
  ~Stream() { (void)hipStreamDestroy(s); }
  operator hipStream_t() const { return s; }
};

/// Byte equality without Catch printing megabytes on failure.
inline bool same(const std::vector<std::byte>& a, const std::vector<std::byte>& b) { return a == b; }

/// A host function that holds its stream until release().
struct Gate {
  std::latch open{1};
  static void wait(void* g) { static_cast<Gate*>(g)->open.wait(); }
  void close_on(hipStream_t s) { HIP_CHECK(hipLaunchHostFunc(s, wait, this)); }
  void release() { open.count_down(); }
};

}  // namespace hipfile::test
