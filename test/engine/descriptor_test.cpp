// SPDX-License-Identifier: MIT
// When the reopen through /proc/self/fd is refused (a descriptor from a more privileged process,
// a file made mode 000 after open, an O_APPEND descriptor of an append-only file: injected here
// through the syscall seam), registration falls back to a duplicate of the client's descriptor
// for buffered I/O, and refuses positional writes through an O_APPEND one with a clear error.
#include <fcntl.h>

#include <cerrno>

#include "../c_api/helpers.hpp"
#include "sys/posix.hpp"

using namespace hipfile::test;

namespace {

int refuse_reopen(const char*, int) { return errno = EACCES, -1; }

// The seam refuses every reopen while alive.
struct RefusedReopen {
  RefusedReopen() { hipfile::sys::ops.open = refuse_reopen; }
  ~RefusedReopen() { hipfile::sys::reset_ops(); }
};

}  // namespace

TEST_CASE("A refused reopen falls back to a duplicate of the client's descriptor", "[descriptor]") {
  ClosedDriver guard;
  const std::size_t n = 3u << 20;  // several chunks, workers included
  TempFile f(n, 41);
  int fd = ::open(f.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(fds_on(f.path()) == 1);  // the client's own
  hipFileHandle_t h = nullptr;
  {
    RefusedReopen refused;
    REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  }
  CHECK(fds_on(f.path()) == 2);  // one duplicate, no O_DIRECT twin
  DeviceMem mem(n);
  REQUIRE(hipFileRead(h, mem.get(), n - 100, 100, 0) == static_cast<ssize_t>(n - 100));
  CHECK(to_host(mem.get(), n - 100) == pattern(n - 100, 41, 100));
  to_device(mem.get(), pattern(n, 42));
  REQUIRE(hipFileWrite(h, mem.get(), n - 4096, 4096, 0) == static_cast<ssize_t>(n - 4096));
  auto file = read_file(f.path());
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + 4096) == pattern(4096, 41));
  CHECK(std::vector<std::byte>(file.begin() + 4096, file.end()) == pattern(n - 4096, 42));
  CHECK(::lseek(fd, 0, SEEK_CUR) == 0);  // positional I/O: the client's offset is untouched
  hipFileHandleDeregister(h);
  CHECK(fds_on(f.path()) == 1);  // the duplicate is closed, the client's fd is not
  CHECK(::fcntl(fd, F_GETFD) >= 0);
  ::close(fd);
}

TEST_CASE("Through an O_APPEND duplicate, reads work and positional writes are refused", "[descriptor]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;
  TempFile f(n, 43);
  int fd = ::open(f.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  REQUIRE(fd >= 0);
  hipFileHandle_t h = nullptr;
  {
    RefusedReopen refused;
    REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  }
  std::vector<std::byte> host(n);
  REQUIRE(hipFileRead(h, host.data(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(host == pattern(n, 43));
  DeviceMem mem(n);
  to_device(mem.get(), pattern(n, 44));
  CHECK(hipFileWrite(h, mem.get(), 4096, 0, 0) == -hipFileInvalidFileOpenFlag);
  CHECK(hipFileWrite(h, host.data(), 4096, 0, 0) == -hipFileInvalidFileOpenFlag);
  CHECK(read_file(f.path()) == pattern(n, 43));  // nothing appended, nothing overwritten
  hipFileHandleDeregister(h);
  ::close(fd);
}

TEST_CASE("Without the seam, an O_APPEND descriptor is reopened without O_APPEND and writes land where asked",
          "[descriptor]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 10;
  TempFile f(n, 45);
  Registered r(f.path(), O_RDWR | O_APPEND);
  std::vector<std::byte> host = pattern(4096, 46);
  REQUIRE(hipFileWrite(r.handle, host.data(), 4096, 8192, 0) == 4096);
  auto file = read_file(f.path());
  REQUIRE(file.size() == n);
  CHECK(std::vector<std::byte>(file.begin() + 8192, file.begin() + 12288) == host);
}
