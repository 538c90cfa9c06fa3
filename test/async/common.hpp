// SPDX-License-Identifier: MIT
// Helpers of the async suite: an open driver, a registered file, streams, a stream gate.
#pragma once

#include "catch.hpp"
#include <hipfile/hipfile.h>
#include <hip/hip_runtime_api.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
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

/// Holds the streams it is closed on until release(). The stream waits on the device for a
/// pinned word (hipStreamWaitValue32), not in a host function: CUDA runs host functions on a
/// shared thread, so a blocking one would hold up every other stream's host functions too and
/// the test would measure the gate, not the library.
struct Gate {
  std::uint32_t* word = nullptr;  // host view
  void* device_word = nullptr;    // the device's view of the same word
  Gate() {
    HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&word), sizeof *word, hipHostMallocMapped | hipHostMallocPortable));
    *word = 0;
    HIP_CHECK(hipHostGetDevicePointer(&device_word, word, 0));
  }
  ~Gate() {
    release();
    (void)hipDeviceSynchronize();  // no stream may still be reading the word
    (void)hipHostFree(word);
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  void close_on(hipStream_t s) {
    HIP_CHECK(hipStreamWaitValue32(s, device_word, 1, hipStreamWaitValueGte, 0xFFFFFFFFu));
  }
  void release() { __atomic_store_n(word, 1u, __ATOMIC_SEQ_CST); }
};

}  // namespace hipfile::test
