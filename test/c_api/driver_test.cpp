// SPDX-License-Identifier: MIT
// Driver lifetime: reference counting, implicit open, version and error strings, and that
// threads and staging memory exist only while the driver is open and has served I/O.
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>
#endif

using namespace hipfile::test;

TEST_CASE("DriverOpen and DriverClose count references", "[driver]") {
  ClosedDriver guard;
  REQUIRE(hipFileUseCount() == 0);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(hipFileUseCount() == 2);
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(hipFileUseCount() == 1);
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(hipFileUseCount() == 0);
  hipFileError_t e = hipFileDriverClose();
  CHECK(e.err == hipFileDriverNotInitialized);
  CHECK(e.hip_drv_err == hipSuccess);
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("Handle registration opens a closed driver once", "[driver]") {
  ClosedDriver guard;
  TempFile f(4096);
  Registered a(f.path(), O_RDONLY);
  CHECK(hipFileUseCount() == 1);
  Registered b(f.path(), O_RDONLY);
  CHECK(hipFileUseCount() == 1);  // implicit open only when closed
}

TEST_CASE("Buffer registration opens the driver even when it fails", "[driver]") {
  ClosedDriver guard;
  CHECK(hipFileBufRegister(nullptr, 16, 0).err == hipFileInvalidValue);
  CHECK(hipFileUseCount() == 1);
}

TEST_CASE("Calls that must not open the driver leave it closed", "[driver]") {
  ClosedDriver guard;
  hipFileHandle_t h = nullptr;
  CHECK(hipFileHandleRegister(nullptr, nullptr).err == hipFileInvalidValue);
  CHECK(register_fd(-1, &h).err == hipFileInvalidValue);
  hipFileHandleDeregister(reinterpret_cast<hipFileHandle_t>(0x1234));
  CHECK(hipFileBufDeregister(reinterpret_cast<void*>(0x1000)).err == hipFileDriverClosing);
  char byte = 0;
  errno = 0;
  CHECK(hipFileRead(reinterpret_cast<hipFileHandle_t>(0x1234), &byte, 1, 0, 0) == -1);
  CHECK(errno == EINVAL);
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("The last close releases every registration", "[driver]") {
  ClosedDriver guard;
  TempFile f(8192, 3);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  DeviceMem mem(8192);
  REQUIRE(hipFileBufRegister(mem.get(), mem.size(), 0).err == hipFileSuccess);
  const int fds_open = open_fd_count();
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(open_fd_count() < fds_open);          // the library's own descriptors are gone
  CHECK(::fcntl(fd, F_GETFD) >= 0);           // the client's is untouched
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(hipFileRead(h, mem.get(), 4096, 0, 0) == -hipFileHandleNotRegistered);
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileMemoryNotRegistered);
  ::close(fd);
}

TEST_CASE("Engine threads start with the first large I/O and stop at the last close", "[driver]") {
  ClosedDriver guard;
  const int before = thread_count();
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(thread_count() == before);  // opening starts nothing
  const std::size_t n = 8u << 20;
  TempFile f(n, 5);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  const int during = thread_count();
  CHECK(during > before);
#ifdef __HIP_PLATFORM_CPU__
  CHECK(hipcpuLiveHostAllocations() > 0);  // staging slots exist while open
#endif
  hipFileHandleDeregister(r.handle);
  r.handle = nullptr;
  ClosedDriver::close_all();
  // At least the engine's workers (two or more) are gone. Not "back to before": the runtime
  // (or a sanitizer) may start threads of its own meanwhile.
  CHECK(thread_count() <= during - 2);
#ifdef __HIP_PLATFORM_CPU__
  CHECK(hipcpuLiveHostAllocations() == 0);  // and all staging memory is freed
#endif
}

TEST_CASE("GetVersion writes the header's version and accepts NULL", "[driver]") {
  unsigned major = 99, minor = 99, patch = 99;
  REQUIRE(hipFileGetVersion(&major, &minor, &patch).err == hipFileSuccess);
  CHECK(major == HIPFILE_VERSION_MAJOR);
  CHECK(minor == HIPFILE_VERSION_MINOR);
  CHECK(patch == HIPFILE_VERSION_PATCH);
  // 0.5: the hipFile API whose statistics calls this library provides (doc/abi.md); consumers such as rocprofiler-systems test for >= 0.5.0 before using them.
  CHECK(major == 0);
  CHECK(minor == 5);
  CHECK(hipFileGetVersion(nullptr, nullptr, nullptr).err == hipFileSuccess);
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("Every op error has its own string and unknown codes say so", "[driver]") {
  std::set<std::string> seen;
  for (int code = hipFileDriverNotInitialized; code < hipFileIOMaxError; ++code) {
    if (code == 5021 || code == 5032) continue;
    std::string s = hipFileGetOpErrorString(static_cast<hipFileOpError_t>(code));
    CAPTURE(code, s);
    CHECK(s != "Unknown hipFile error");
    CHECK(seen.insert(s).second);
  }
  CHECK(std::string(hipFileGetOpErrorString(static_cast<hipFileOpError_t>(4242))) == "Unknown hipFile error");
  CHECK(std::string(hipFileGetOpErrorString(hipFileIOMaxError)) == "Unknown hipFile error");
  CHECK(std::string(HIPFILE_ERRSTR(-hipFileInvalidValue)) == hipFileGetOpErrorString(hipFileInvalidValue));
  CHECK(IS_HIPFILE_ERR(-hipFileInvalidValue));
  CHECK_FALSE(IS_HIPFILE_ERR(-1));
  hipFileError_t e{hipFileHipDriverError, hipErrorOutOfMemory};
  CHECK(IS_HIP_DRV_ERR(e));
  CHECK(HIP_DRV_ERR(e) == hipErrorOutOfMemory);
}
