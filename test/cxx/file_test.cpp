// SPDX-License-Identifier: MIT
// hipfile::File: ownership checked against the real descriptor and handle state, every
// failure path, and span I/O byte for byte.
#include "catch.hpp"

#include <hipfile++/file.hpp>

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "test_support.hpp"

using hipfile::DeviceBuffer;
using hipfile::DirectIo;
using hipfile::Error;
using hipfile::File;
using hipfile::Registration;
namespace t = hipfile::test;

static_assert(!std::is_copy_constructible_v<File>);
static_assert(!std::is_copy_assignable_v<File>);
static_assert(std::is_nothrow_move_constructible_v<File>);
static_assert(std::is_nothrow_move_assignable_v<File>);
static_assert(std::is_nothrow_default_constructible_v<File>);
static_assert(std::is_nothrow_destructible_v<File>);
static_assert(sizeof(File) <= 4 * sizeof(void*));

namespace {

bool fd_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }
bool fd_closed(int fd) { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }

// The handle is unknown to the library: I/O with it says so.
bool handle_unregistered(hipFileHandle_t h, void* dev) {
  return hipFileRead(h, dev, 16, 0, 0) == -hipFileHandleNotRegistered;
}

// Registers `fd` with the C API and deregisters again: true when that worked.
bool can_register(int fd) {
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  hipFileHandle_t h = nullptr;
  if (hipFileHandleRegister(&h, &d).err != hipFileSuccess) return false;
  hipFileHandleDeregister(h);
  return true;
}

File open_ok(const std::string& path, int flags) {
  auto f = File::open(path, flags);
  if (!f) FAIL("File::open(" << path << "): " << f.error().message());
  return std::move(*f);
}

}  // namespace

TEST_CASE("A default File is empty", "[file]") {
  File f;
  CHECK_FALSE(f);
  CHECK(f.fd() == -1);
  CHECK(f.handle() == nullptr);
  CHECK_FALSE(f.direct());
  CHECK(f.close().has_value());
  auto raw = f.release();
  CHECK(raw.fd == -1);
  CHECK(raw.handle == nullptr);
}

TEST_CASE("File::open registers the descriptor; destruction deregisters, then closes", "[file]") {
  t::TempFile tmp(8192, 5);
  t::DeviceMem dev(4096);
  int fd = -1;
  hipFileHandle_t h = nullptr;
  {
    File f = open_ok(tmp.path(), O_RDONLY);
    CHECK(f);
    fd = f.fd();
    h = f.handle();
    CHECK(fd >= 0);
    CHECK(h != nullptr);
    CHECK(fd_open(fd));
    CHECK((::fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    CHECK(f.direct());  // the test directory is a real disk: O_DIRECT by default
    CHECK(hipFileRead(h, dev.get(), 16, 0, 0) == 16);
    // The library knows the fd number: registering it again is refused.
    CHECK_FALSE(can_register(fd));
  }
  CHECK(fd_closed(fd));
  CHECK(handle_unregistered(h, dev.get()));
  // The same fd number registers again once reused.
  const int other = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(other >= 0);
  if (other != fd) {  // usually the lowest free number is fd itself
    REQUIRE(::dup2(other, fd) == fd);
    ::close(other);
  }
  CHECK(can_register(fd));
  ::close(fd);
}

TEST_CASE("A moved-from File releases nothing", "[file]") {
  t::TempFile tmp(4096, 2);
  t::DeviceMem dev(4096);
  File a = open_ok(tmp.path(), O_RDONLY);
  const int fd = a.fd();
  const hipFileHandle_t h = a.handle();
  {
    File b(std::move(a));
    CHECK_FALSE(a);
    CHECK(a.fd() == -1);
    CHECK(a.handle() == nullptr);
    CHECK(b.fd() == fd);
    CHECK(b.handle() == h);
    a.reset();  // nothing to release
    CHECK(fd_open(fd));
    auto n = b.read(std::span<std::byte>(dev.bytes(), 4096), 0);
    REQUIRE(n.has_value());
    CHECK(*n == 4096);
    CHECK(t::to_host(dev.get(), 4096) == t::pattern(4096, 2));
  }
  CHECK(fd_closed(fd));
  CHECK(handle_unregistered(h, dev.get()));
}

TEST_CASE("File move-assignment releases the old file now", "[file]") {
  t::TempFile one(4096, 1), two(4096, 2);
  t::DeviceMem dev(4096);
  File a = open_ok(one.path(), O_RDONLY);
  File b = open_ok(two.path(), O_RDONLY);
  const int fd1 = a.fd();
  const hipFileHandle_t h1 = a.handle();
  const int fd2 = b.fd();
  a = std::move(b);
  CHECK(fd_closed(fd1));
  CHECK(handle_unregistered(h1, dev.get()));
  CHECK(a.fd() == fd2);
  CHECK_FALSE(b);
  REQUIRE(a.read(std::span<std::byte>(dev.bytes(), 4096), 0).has_value());
  CHECK(t::to_host(dev.get(), 4096) == t::pattern(4096, 2));
  a = File();
  CHECK(fd_closed(fd2));
}

TEST_CASE("File::release hands the descriptor and handle to the caller", "[file]") {
  t::TempFile tmp(4096, 9);
  t::DeviceMem dev(4096);
  File::Raw raw;
  {
    File f = open_ok(tmp.path(), O_RDONLY);
    raw = f.release();
    CHECK_FALSE(f);
  }
  CHECK(fd_open(raw.fd));
  CHECK(hipFileRead(raw.handle, dev.get(), 4096, 0, 0) == 4096);  // still registered
  hipFileHandleDeregister(raw.handle);
  CHECK(::close(raw.fd) == 0);
}

TEST_CASE("File::close reports a failing close and leaves the File empty", "[file]") {
  t::TempFile tmp(4096, 9);
  File f = open_ok(tmp.path(), O_RDONLY);
  const int fd = f.fd();
  SECTION("success") {
    CHECK(f.close().has_value());
    CHECK_FALSE(f);
    CHECK(fd_closed(fd));
  }
  SECTION("the descriptor was closed behind the File's back") {
    REQUIRE(::close(fd) == 0);
    auto r = f.close();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_errno(EBADF));
    CHECK_FALSE(f);
  }
  CHECK(f.close().has_value());  // nothing left to close
}

TEST_CASE("File::adopt takes over a descriptor only on success", "[file]") {
  t::TempFile tmp(4096, 4);
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    auto f = File::adopt(fd);
    REQUIRE(f.has_value());
    CHECK(f->fd() == fd);
    // Adopting the same descriptor twice is refused, and the caller keeps it.
    auto again = File::adopt(fd);
    REQUIRE_FALSE(again.has_value());
    CHECK(again.error() == Error::from_op(hipFileHandleAlreadyRegistered));
    CHECK(fd_open(fd));
  }
  CHECK(fd_closed(fd));

  auto bad = File::adopt(fd);  // closed now
  CHECK_FALSE(bad.has_value());
}

TEST_CASE("File::open failures return the errno of open(2)", "[file]") {
  SECTION("no such file") {
    auto f = File::open(t::test_dir() + "/hipfile-no-such-dir/none", O_RDONLY);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error() == Error::from_errno(ENOENT));
    CHECK(f.error().is_system());
  }
  SECTION("permission denied") {
    t::TempFile tmp(16);
    REQUIRE(::chmod(tmp.c_str(), 0) == 0);
    auto f = File::open(tmp.path(), O_RDONLY);
    if (::geteuid() == 0) {
      // Root bypasses file permissions; the EBADF check below covers "not allowed" instead.
      CHECK(f.has_value());
    } else {
      REQUIRE_FALSE(f.has_value());
      CHECK(f.error() == Error::from_errno(EACCES));
    }
  }
  SECTION("exclusive creation of an existing file") {
    t::TempFile tmp(16);
    auto f = File::open(tmp.path(), O_RDWR | O_CREAT | O_EXCL);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error() == Error::from_errno(EEXIST));
  }
}

TEST_CASE("File::open falls back to buffered I/O where O_DIRECT is refused", "[file]") {
  // procfs refuses O_DIRECT with EINVAL, like file systems without direct I/O support.
  const char* path = "/proc/version";
  SECTION("prefer (the default) opens without O_DIRECT") {
    auto f = File::open(path, O_RDONLY);
    REQUIRE(f.has_value());
    CHECK_FALSE(f->direct());
  }
  SECTION("require reports EINVAL") {
    auto f = File::open(path, O_RDONLY, 0, DirectIo::require);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error() == Error::from_errno(EINVAL));
    auto g = File::open(path, O_RDONLY | O_DIRECT);
    REQUIRE_FALSE(g.has_value());
    CHECK(g.error() == Error::from_errno(EINVAL));
  }
  SECTION("off never asks for O_DIRECT") {
    t::TempFile tmp(16);
    auto f = File::open(tmp.path(), O_RDONLY, 0, DirectIo::off);
    REQUIRE(f.has_value());
    CHECK_FALSE(f->direct());
  }
}

TEST_CASE("An exclusive create stays exclusive and gets O_DIRECT where the file system has it", "[file]") {
  const std::string path = t::test_dir() + "/hipfile-excl-" + std::to_string(::getpid());
  ::unlink(path.c_str());
  auto f = File::open(path, O_RDWR | O_CREAT | O_EXCL);
  REQUIRE(f.has_value());
  const int probe = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  CHECK(f->direct() == (probe >= 0));  // O_DIRECT added after the create, where it works
  if (probe >= 0) ::close(probe);
  CHECK((::fcntl(f->fd(), F_GETFL) & O_DIRECT) == (f->direct() ? O_DIRECT : 0));
  auto again = File::open(path, O_RDWR | O_CREAT | O_EXCL);  // made by the first call
  REQUIRE_FALSE(again.has_value());
  CHECK(again.error() == Error::from_errno(EEXIST));
  ::unlink(path.c_str());
}

namespace {

// A block device this process opened read-only, and the capacity it should report.
struct BlockDevice {
  int fd = -1;
  std::string name;
  std::uint64_t bytes = 0;
};

// A loop device over a temporary file, detached again on destruction (root only). CI runs as
// root, so there the block-device case always has a device of a known size.
class LoopDevice {
 public:
  static constexpr std::uint64_t kBytes = 256 * 1024;
  LoopDevice() : backing_(kBytes, 9) {
    const int file = ::open(backing_.c_str(), O_RDWR | O_CLOEXEC);
    if (file < 0) return;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
      const std::string n = entry.path().filename().string();
      if (n.rfind("loop", 0) != 0 || !entry.is_block_file(ec)) continue;
      const int fd = ::open(entry.path().c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) continue;
      if (::ioctl(fd, LOOP_SET_FD, file) == 0) {  // EBUSY: in use by someone else, try the next
        loop_ = fd;
        path_ = entry.path().string();
        break;
      }
      ::close(fd);
    }
    ::close(file);
  }
  ~LoopDevice() {
    if (loop_ < 0) return;
    (void)::ioctl(loop_, LOOP_CLR_FD, 0);
    ::close(loop_);
  }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  const std::string& path() const noexcept { return path_; }

 private:
  t::TempFile backing_;
  int loop_ = -1;
  std::string path_;  // empty: no loop device could be attached
};

// Any existing block device of at least 8 KiB this process may open (as root, usually some).
BlockDevice open_any_block_device() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/block", ec)) {
    std::uint64_t sectors = 0;
    std::FILE* sz = std::fopen((entry.path() / "size").c_str(), "r");
    if (sz == nullptr) continue;
    const bool read = std::fscanf(sz, "%" SCNu64, &sectors) == 1;
    std::fclose(sz);
    if (!read || sectors < 16) continue;
    const std::string name = entry.path().filename().string();
    const int fd = ::open(("/dev/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return {fd, name, sectors * 512};
  }
  return {};
}

}  // namespace

TEST_CASE("File::size of a block device is its capacity, and the file position stays", "[file][environment]") {
  LoopDevice loop;
  BlockDevice dev;
  if (!loop.path().empty()) dev = {::open(loop.path().c_str(), O_RDONLY | O_CLOEXEC), loop.path(), LoopDevice::kBytes};
  if (dev.fd < 0) dev = open_any_block_device();
  if (dev.fd < 0) HIPFILE_SKIP("no block device can be opened and no loop device attached (needs root)");
  CAPTURE(dev.name);
  REQUIRE(::lseek(dev.fd, 4096, SEEK_SET) == 4096);
  auto f = File::adopt(dev.fd);
  if (!f) {
    ::close(dev.fd);
    HIPFILE_SKIP("the block device " << dev.name << " cannot be registered: " << f.error().message());
  }
  auto size = f->size();
  REQUIRE(size.has_value());
  CHECK(*size == dev.bytes);
  CHECK(::lseek(f->fd(), 0, SEEK_CUR) == 4096);
}

TEST_CASE("File I/O failures return the right Error", "[file]") {
  t::TempFile tmp(8192, 3);
  t::DeviceMem dev(8192);
  std::span<std::byte> dst(dev.bytes(), 4096);

  SECTION("an empty File: the handle is not registered") {
    File f;
    auto r = f.read(dst, 0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_op(hipFileHandleNotRegistered));
    auto w = f.write(dst, 0);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error() == Error::from_op(hipFileHandleNotRegistered));
  }
  SECTION("writing through a read-only descriptor") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto w = f.write(dst, 0);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error() == Error::from_errno(EBADF));
    CHECK(t::read_file(tmp.path()) == t::pattern(8192, 3));
  }
  SECTION("a negative file offset") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto r = f.read(dst, -4096);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_errno(EINVAL));  // hipFile 0.4+: -1 with errno EINVAL
    CHECK(r.error().message() == "read of 4096 bytes at offset -4096 from '" + tmp.path() +
                                     "': Invalid argument (EINVAL): the file offset -4096 is negative");
    CHECK(f.write(dst, -1).error().explanation() == "the file offset -1 is negative");
    CHECK(f.read_exact(dst, -1).error() == Error::from_errno(EINVAL));
    // What hipFileRead itself gives a C caller: the same code.
    errno = 0;
    CHECK(hipFileRead(f.handle(), dev.get(), 4096, -4096, 0) == -1);
    CHECK(errno == EINVAL);
  }
  SECTION("a range past INT64_MAX") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto r = f.read(dst, INT64_MAX - 10);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_errno(EINVAL));
    CHECK(r.error().explanation() == "the file offset 9223372036854775797 plus 4096 bytes passes INT64_MAX");
  }
  SECTION("a span past the end of the device allocation") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto r = f.read(std::span<std::byte>(dev.bytes() + 4096, 8192), 0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_op(hipFileInvalidValue));
    CHECK(r.error().message() == "read of 8192 bytes at offset 0 from '" + tmp.path() +
                                     "': invalid argument: size 8192 at buffer offset 4096 runs past the buffer's 8192 bytes");
    File w = open_ok(tmp.path(), O_RDWR);
    auto wr = w.write(std::span<const std::byte>(dev.bytes(), 8193), 0);
    REQUIRE_FALSE(wr.has_value());
    CHECK(wr.error().explanation() == "size 8193 at buffer offset 0 runs past the buffer's 8192 bytes");
    CHECK(t::read_file(tmp.path()) == t::pattern(8192, 3));  // nothing written
  }
  SECTION("a span of host memory past its end: the library's code, nothing made up") {
    File f = open_ok(tmp.path(), O_RDONLY);
    std::vector<std::byte> host(16);
    auto r = f.read(std::span(host), 0);  // host memory the runtime does not know: no allocation to name
    REQUIRE(r.has_value());
    CHECK(*r == 16);
  }
  SECTION("a span outside the registration") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto reg = Registration::create(std::span<const std::byte>(dev.bytes(), 4096));
    REQUIRE(reg.has_value());
    auto r = f.read(*reg, std::span<std::byte>(dev.bytes() + 2048, 4096), 0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_op(hipFileInvalidValue));
    CHECK(r.error().message() == "read of 4096 bytes at offset 0 from '" + tmp.path() +
                                     "': invalid argument: size 4096 at registration offset 2048 runs past the "
                                     "registration's 4096 bytes");
    auto w = f.write(*reg, std::span<const std::byte>(dev.bytes() + 4096, 1), 0);
    REQUIRE_FALSE(w.has_value());
    CHECK(w.error() == Error::from_op(hipFileInvalidValue));
    CHECK(w.error().explanation() == "size 1 at registration offset 4096 runs past the registration's 4096 bytes");
    auto upper = Registration::create(std::span<const std::byte>(dev.bytes() + 4096, 4096));
    REQUIRE(upper.has_value());
    auto before = f.read(*upper, std::span<std::byte>(dev.bytes() + 1024, 16), 0);
    REQUIRE_FALSE(before.has_value());
    CHECK(before.error().explanation() == "the span starts 3072 bytes before the registration's 4096 bytes");
  }
  SECTION("an empty registration") {
    File f = open_ok(tmp.path(), O_RDONLY);
    auto r = f.read(Registration(), dst, 0);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_op(hipFileMemoryNotRegistered));
  }
  SECTION("size() of an empty File") {
    auto s = File().size();
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error() == Error::from_errno(EBADF));
  }
}

TEST_CASE("File span I/O round-trips bytes through device memory", "[file]") {
  const std::size_t n = (1 << 20) + 4096 + 123;  // not a multiple of anything convenient
  const auto bytes = t::pattern(n, 11);
  t::TempFile tmp(0);
  t::DeviceMem src(n), dst(n);
  t::to_device(src.get(), bytes);
  {
    File f = open_ok(tmp.path(), O_RDWR);
    auto w = f.write(std::span<const std::byte>(src.bytes(), n), 0);
    REQUIRE(w.has_value());
    CHECK(*w == n);
    auto size = f.size();
    REQUIRE(size.has_value());
    CHECK(*size == n);
    t::fill_device(dst.get(), 0, n);
    auto r = f.read(std::span<std::byte>(dst.bytes(), n), 0);
    REQUIRE(r.has_value());
    CHECK(*r == n);
    CHECK(t::to_host(dst.get(), n) == bytes);
  }
  CHECK(t::read_file(tmp.path()) == bytes);
}

TEST_CASE("File I/O at offsets moves exactly the requested window", "[file]") {
  const std::size_t size = 256 * 1024;
  t::TempFile tmp(size, 21);
  t::DeviceMem dev(64 * 1024);
  File f = open_ok(tmp.path(), O_RDWR);
  t::fill_device(dev.get(), 0xAB, dev.size());
  // Unaligned everything: file offset, device address and length.
  auto r = f.read(std::span<std::byte>(dev.bytes() + 7, 10000), 12345);
  REQUIRE(r.has_value());
  CHECK(*r == 10000);
  const auto host = t::to_host(dev.get(), dev.size());
  CHECK(std::vector<std::byte>(host.begin() + 7, host.begin() + 7 + 10000) == t::pattern(10000, 21, 12345));
  CHECK(host[6] == std::byte{0xAB});
  CHECK(host[7 + 10000] == std::byte{0xAB});

  // Write that window elsewhere in the file; only that range changes.
  auto w = f.write(std::span<const std::byte>(dev.bytes() + 7, 10000), 100000);
  REQUIRE(w.has_value());
  CHECK(*w == 10000);
  auto expect = t::pattern(size, 21);
  const auto window = t::pattern(10000, 21, 12345);
  std::copy(window.begin(), window.end(), expect.begin() + 100000);
  CHECK(t::read_file(tmp.path()) == expect);
}

TEST_CASE("File I/O through a registration passes the base and the subspan's offset", "[file]") {
  const std::size_t size = 64 * 1024;
  t::TempFile tmp(size, 8);
  auto rb = hipfile::make_registered_buffer(32 * 1024);
  REQUIRE(rb.has_value());
  t::fill_device(rb->buffer.data(), 0xCD, rb->size());
  File f = open_ok(tmp.path(), O_RDWR);
  auto part = rb->bytes().subspan(4096, 8192);
  auto r = f.read(rb->registration, part, 16384);
  REQUIRE(r.has_value());
  CHECK(*r == 8192);
  const auto host = t::to_host(rb->buffer.data(), rb->size());
  CHECK(std::vector<std::byte>(host.begin() + 4096, host.begin() + 4096 + 8192) == t::pattern(8192, 8, 16384));
  CHECK(host[4095] == std::byte{0xCD});
  CHECK(host[4096 + 8192] == std::byte{0xCD});

  // Write the same subspan back at offset 0 through the registration.
  auto w = f.write(rb->registration, std::span<const std::byte>(part), 0);
  REQUIRE(w.has_value());
  CHECK(*w == 8192);
  auto expect = t::pattern(size, 8);
  const auto moved = t::pattern(8192, 8, 16384);
  std::copy(moved.begin(), moved.end(), expect.begin());
  CHECK(t::read_file(tmp.path()) == expect);

  // read_exact / write_all through the registration.
  REQUIRE(f.read_exact(rb->registration, rb->bytes(), 0).has_value());
  CHECK(t::to_host(rb->buffer.data(), rb->size()) ==
        std::vector<std::byte>(expect.begin(), expect.begin() + 32 * 1024));
  REQUIRE(f.write_all(rb->registration, std::span<const std::byte>(rb->bytes()), 32 * 1024).has_value());
  std::copy(expect.begin(), expect.begin() + 32 * 1024, expect.begin() + 32 * 1024);
  CHECK(t::read_file(tmp.path()) == expect);
}

TEST_CASE("File reads at and after end of file give short and zero counts", "[file]") {
  const std::size_t size = 10000;
  t::TempFile tmp(size, 13);
  t::DeviceMem dev(16384);
  File f = open_ok(tmp.path(), O_RDONLY);
  std::span<std::byte> all(dev.bytes(), 16384);

  auto across = f.read(all.first(8192), 4096);
  REQUIRE(across.has_value());
  CHECK(*across == size - 4096);
  CHECK(t::to_host(dev.get(), size - 4096) == t::pattern(size - 4096, 13, 4096));

  auto at = f.read(all.first(4096), size);
  REQUIRE(at.has_value());
  CHECK(*at == 0);

  auto after = f.read(all.first(4096), 1 << 20);
  REQUIRE(after.has_value());
  CHECK(*after == 0);

  auto whole = f.read(all, 0);
  REQUIRE(whole.has_value());
  CHECK(*whole == size);

  SECTION("read_exact turns the short read into an end-of-file Error for the whole request") {
    auto r = f.read_exact(all.first(8192), 4096);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::end_of_file());
    CHECK(r.error().is_eof());
    CHECK(r.error().message() == "read of 8192 bytes at offset 4096 from '" + tmp.path() + "': end of file");
    CHECK(f.read_exact(all.first(size), 0).has_value());
    CHECK(t::to_host(dev.get(), size) == t::pattern(size, 13));
  }
  SECTION("an empty file") {
    t::TempFile empty(0);
    File e = open_ok(empty.path(), O_RDONLY);
    auto r = e.read(all.first(4096), 0);
    REQUIRE(r.has_value());
    CHECK(*r == 0);
    auto s = e.size();
    REQUIRE(s.has_value());
    CHECK(*s == 0);
  }
}

TEST_CASE("File::write extends the file; write_all writes everything", "[file]") {
  t::TempFile tmp(0);
  const auto bytes = t::pattern(300000, 17);
  t::DeviceMem dev(bytes.size());
  t::to_device(dev.get(), bytes);
  File f = open_ok(tmp.path(), O_WRONLY);
  REQUIRE(f.write_all(std::span<const std::byte>(dev.bytes(), bytes.size()), 4096).has_value());
  auto s = f.size();
  REQUIRE(s.has_value());
  CHECK(*s == 4096 + bytes.size());
  const auto file = t::read_file(tmp.path());
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + 4096) == std::vector<std::byte>(4096));
  CHECK(std::vector<std::byte>(file.begin() + 4096, file.end()) == bytes);
}

TEST_CASE("File I/O works on host memory", "[file]") {
  t::TempFile tmp(20000, 31);
  File f = open_ok(tmp.path(), O_RDWR);
  std::vector<std::byte> host(20000);
  auto r = f.read(std::span<std::byte>(host), 0);
  REQUIRE(r.has_value());
  CHECK(*r == 20000);
  CHECK(host == t::pattern(20000, 31));
  const auto other = t::pattern(5000, 32);
  auto w = f.write(std::span<const std::byte>(other), 20000);
  REQUIRE(w.has_value());
  CHECK(*w == 5000);
  auto s = f.size();
  REQUIRE(s.has_value());
  CHECK(*s == 25000);
}
