// SPDX-License-Identifier: MIT
// File handle registration: argument checks, the library's own descriptors, stale fd numbers,
// and deregistration while I/O is in flight.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "helpers.hpp"

using namespace hipfile::test;

TEST_CASE("HandleRegister rejects NULL arguments without opening the driver", "[handle]") {
  ClosedDriver guard;
  hipFileHandle_t h = nullptr;
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = 0;
  CHECK(hipFileHandleRegister(nullptr, &d).err == hipFileInvalidValue);
  CHECK(hipFileHandleRegister(&h, nullptr).err == hipFileInvalidValue);
  CHECK(h == nullptr);
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("HandleRegister refuses handle types other than OpaqueFD", "[handle]") {
  ClosedDriver guard;
  TempFile f(16);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  for (int type : {int(hipFileHandleTypeOpaqueWin32), int(hipFileHandleTypeUserspaceFS), 0, 77}) {
    hipFileDescr_t d{};
    d.type = static_cast<hipFileFileHandleType_t>(type);
    d.handle.fd = fd;
    hipFileHandle_t h = nullptr;
    CAPTURE(type);
    CHECK(hipFileHandleRegister(&h, &d).err == hipFileIONotSupported);
  }
  CHECK(hipFileUseCount() == 0);
  ::close(fd);
}

TEST_CASE("HandleRegister rejects bad, closed and unsuitable descriptors", "[handle]") {
  ClosedDriver guard;
  hipFileHandle_t h = nullptr;
  CHECK(register_fd(-1, &h).err == hipFileInvalidValue);
  TempFile f(16);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  ::close(fd);
  CHECK(register_fd(fd, &h).err == hipFileInvalidValue);
  CHECK(register_fd(1 << 20, &h).err == hipFileInvalidValue);
  int dir = ::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK(register_fd(dir, &h).err == hipFileInvalidFileType);
  ::close(dir);
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  CHECK(register_fd(pipefd[0], &h).err == hipFileInvalidFileType);
  ::close(pipefd[0]);
  ::close(pipefd[1]);
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("The same fd twice is refused; a dup registers separately", "[handle]") {
  ClosedDriver guard;
  TempFile f(4096, 2);
  Registered r(f.path(), O_RDONLY);
  hipFileHandle_t again = nullptr;
  CHECK(register_fd(r.fd, &again).err == hipFileHandleAlreadyRegistered);
  int dup = ::dup(r.fd);
  hipFileHandle_t h2 = nullptr;
  REQUIRE(register_fd(dup, &h2).err == hipFileSuccess);
  CHECK(h2 != r.handle);
  hipFileHandleDeregister(h2);
  ::close(dup);
}

TEST_CASE("A closed and reused fd number retires the stale registration", "[handle]") {
  ClosedDriver guard;
  TempFile a(4096, 10), b(4096, 11);
  int fd = ::open(a.c_str(), O_RDONLY | O_CLOEXEC);
  hipFileHandle_t old_handle = nullptr;
  REQUIRE(register_fd(fd, &old_handle).err == hipFileSuccess);
  ::close(fd);  // without deregistering: the mistake upstream users make
  int fd2 = ::open(b.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd2 == fd);  // the lowest free number comes back
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(fd2, &h).err == hipFileSuccess);
  std::vector<std::byte> host(4096);
  CHECK(hipFileRead(old_handle, host.data(), 4096, 0, 0) == -hipFileHandleNotRegistered);
  REQUIRE(hipFileRead(h, host.data(), 4096, 0, 0) == 4096);
  CHECK(host == pattern(4096, 11));  // the new file, not the old one
  hipFileHandleDeregister(h);
  ::close(fd2);
}

TEST_CASE("Deregistration invalidates the handle and closes only the library's descriptors", "[handle]") {
  ClosedDriver guard;
  TempFile f(4096, 4);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  const int before = open_fd_count();
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  CHECK(open_fd_count() > before);
  hipFileHandleDeregister(h);
  CHECK(open_fd_count() == before);
  CHECK(::fcntl(fd, F_GETFD) >= 0);
  std::vector<std::byte> host(16);
  CHECK(hipFileRead(h, host.data(), 16, 0, 0) == -hipFileHandleNotRegistered);
  hipFileHandleDeregister(h);        // twice: ignored
  hipFileHandleDeregister(nullptr);  // NULL: ignored
  hipFileHandle_t again = nullptr;
  CHECK(register_fd(fd, &again).err == hipFileSuccess);  // the number is free again
  CHECK(again != h);                                      // handles are never reused
  hipFileHandleDeregister(again);
  ::close(fd);
}

TEST_CASE("A registered file keeps working after it is unlinked", "[handle]") {
  ClosedDriver guard;
  auto* f = new TempFile(8192, 6);
  Registered r(f->path(), O_RDONLY);
  delete f;  // unlinks
  DeviceMem mem(8192);
  REQUIRE(hipFileRead(r.handle, mem.get(), 8192, 0, 0) == 8192);
  CHECK(to_host(mem.get(), 8192) == pattern(8192, 6));
}

TEST_CASE("O_APPEND on the client fd does not turn positional writes into appends", "[handle]") {
  ClosedDriver guard;
  TempFile f(8192, 7);
  Registered r(f.path(), O_RDWR | O_APPEND);
  auto data = pattern(100, 99);
  REQUIRE(hipFileWrite(r.handle, data.data(), data.size(), 1000, 0) == 100);
  auto file = read_file(f.path());
  REQUIRE(file.size() == 8192);  // nothing appended
  auto expect = pattern(8192, 7);
  std::copy(data.begin(), data.end(), expect.begin() + 1000);
  CHECK(file == expect);
}

TEST_CASE("Access mode is kept: reading a write-only file fails with EBADF", "[handle]") {
  ClosedDriver guard;
  TempFile f(4096, 8);
  Registered w(f.path(), O_WRONLY);
  std::vector<std::byte> host(4096);
  errno = 0;
  CHECK(hipFileRead(w.handle, host.data(), 4096, 0, 0) == -1);
  CHECK(errno == EBADF);
  Registered ro(f.path(), O_RDONLY);
  errno = 0;
  CHECK(hipFileWrite(ro.handle, host.data(), 4096, 0, 0) == -1);
  CHECK(errno == EBADF);
  CHECK(read_file(f.path()) == pattern(4096, 8));
}

TEST_CASE("Deregistering while I/O is in flight waits for it", "[handle]") {
  ClosedDriver guard;
  const std::size_t n = 64u << 20;
  TempFile f(n, 12);
  auto* r = new Registered(f.path(), O_RDONLY);
  DeviceMem mem(n);
  std::atomic<ssize_t> got{0};
  std::atomic<bool> started{false};
  std::thread reader([&] {
    started = true;
    got = hipFileRead(r->handle, mem.get(), n, 0, 0);
  });
  while (!started) std::this_thread::yield();
  hipFileHandleDeregister(r->handle);  // races the read: either it ran first or it waits
  reader.join();
  const ssize_t result = got.load();
  CHECK((result == static_cast<ssize_t>(n) || result == -hipFileHandleNotRegistered));
  if (result == static_cast<ssize_t>(n)) CHECK(to_host(mem.get(), n) == pattern(n, 12));
  CHECK(hipFileRead(r->handle, mem.get(), 16, 0, 0) == -hipFileHandleNotRegistered);
  r->handle = nullptr;
  delete r;
}

TEST_CASE("An O_PATH descriptor is refused: it cannot read, so neither may the library", "[handle][descriptor]") {
  ClosedDriver guard;
  TempFile f(4096, 5);
  const int flags = GENERATE(O_PATH, O_PATH | O_RDWR);
  int fd = ::open(f.c_str(), flags | O_CLOEXEC);
  REQUIRE(fd >= 0);
  char byte;
  CHECK(::read(fd, &byte, 1) == -1);  // what O_PATH means
  hipFileHandle_t h = nullptr;
  CHECK(register_fd(fd, &h).err == hipFileInvalidFileOpenFlag);
  CHECK(hipFileUseCount() == 0);  // refused before the implicit open
  ::close(fd);
}

TEST_CASE("A descriptor received through SCM_RIGHTS registers and serves I/O", "[handle][descriptor]") {
  ClosedDriver guard;
  const std::size_t n = 256u << 10;
  TempFile f(n, 6);
  int pair[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0);
  int sent = ::open(f.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(sent >= 0);
  char data = 'x';
  iovec iov{&data, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &sent, sizeof(int));
  REQUIRE(::sendmsg(pair[0], &msg, 0) == 1);
  ::close(sent);  // only the received copy is left
  msghdr in{};
  alignas(cmsghdr) char in_control[CMSG_SPACE(sizeof(int))] = {};
  in.msg_iov = &iov;
  in.msg_iovlen = 1;
  in.msg_control = in_control;
  in.msg_controllen = sizeof in_control;
  REQUIRE(::recvmsg(pair[1], &in, MSG_CMSG_CLOEXEC) == 1);
  int got = -1;
  std::memcpy(&got, CMSG_DATA(CMSG_FIRSTHDR(&in)), sizeof(int));
  ::close(pair[0]);
  ::close(pair[1]);
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(got, &h).err == hipFileSuccess);
  DeviceMem mem(n);
  CHECK(hipFileRead(h, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == pattern(n, 6));
  to_device(mem.get(), pattern(n, 7));
  CHECK(hipFileWrite(h, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(read_file(f.path()) == pattern(n, 7));
  hipFileHandleDeregister(h);
  ::close(got);
}
