// SPDX-License-Identifier: MIT
// hipFileRead / hipFileWrite: data read back and compared byte for byte, exact error returns,
// and canaries around every target so nothing outside the caller's range is ever written.
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdlib>
#include <thread>

#include "helpers.hpp"

using namespace hipfile::test;

namespace {

constexpr std::byte kCanary{0xa5};

// A device allocation with `pad` canary bytes either side of the `n` bytes under test.
struct Guarded {
  DeviceMem mem;
  std::size_t pad, n;
  Guarded(std::size_t n_, std::size_t pad_ = 4096) : mem(n_ + 2 * pad_), pad(pad_), n(n_) {
    fill_device(mem.get(), static_cast<int>(kCanary), mem.size());
  }
  std::byte* data() const { return mem.bytes() + pad; }
  // Checks the canaries and returns the bytes under test.
  std::vector<std::byte> check() const {
    auto all = to_host(mem.get(), mem.size());
    for (std::size_t i = 0; i < pad; ++i) {
      if (all[i] != kCanary || all[pad + n + i] != kCanary) {
        FAIL("a byte outside the caller's range was written");
      }
    }
    return {all.begin() + pad, all.begin() + pad + n};
  }
};

std::vector<std::byte> slice(const std::vector<std::byte>& v, std::size_t off, std::size_t len) {
  return {v.begin() + off, v.begin() + off + len};
}

}  // namespace

TEST_CASE("Reads land exactly where asked for every size and offset", "[io]") {
  ClosedDriver guard;
  const std::size_t file_size = (9u << 20) + 123;
  TempFile f(file_size, 31);
  const auto expect = pattern(file_size, 31);
  Registered r(f.path(), O_RDONLY);
  const std::size_t size = GENERATE(1, 4095, 4096, 65537, (1u << 20) + 3, (5u << 20) + 4097);
  const std::size_t file_off = GENERATE(0, 1, 4096, 12345);
  CAPTURE(size, file_off);
  Guarded g(size);
  REQUIRE(hipFileRead(r.handle, g.data(), size, file_off, 0) == static_cast<ssize_t>(size));
  CHECK(g.check() == slice(expect, file_off, size));
}

TEST_CASE("Writes land exactly where asked and nothing else changes", "[io]") {
  ClosedDriver guard;
  const std::size_t file_size = 8u << 20;
  TempFile f(file_size, 32);
  Registered r(f.path(), O_RDWR);
  const std::size_t size = GENERATE(1, 4096, 100000, (3u << 20) + 5);
  const std::size_t file_off = GENERATE(0, 7, 8192);
  CAPTURE(size, file_off);
  DeviceMem mem(size);
  const auto data = pattern(size, 77);
  to_device(mem.get(), data);
  REQUIRE(hipFileWrite(r.handle, mem.get(), size, file_off, 0) == static_cast<ssize_t>(size));
  auto expect = pattern(file_size, 32);
  std::copy(data.begin(), data.end(), expect.begin() + file_off);
  CHECK(read_file(f.path()) == expect);
}

TEST_CASE("buffer_offset places data inside registered and unregistered buffers", "[io]") {
  ClosedDriver guard;
  TempFile f(1 << 20, 33);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(1 << 20);
  const bool registered = GENERATE(false, true);
  CAPTURE(registered);
  if (registered) REQUIRE(hipFileBufRegister(mem.get(), mem.size(), 0).err == hipFileSuccess);
  fill_device(mem.get(), 0, mem.size());
  // Upstream's own case: 1 MiB - 4 KiB at buffer_offset 4096 into a 1 MiB buffer.
  REQUIRE(hipFileRead(r.handle, mem.get(), (1 << 20) - 4096, 0, 4096) == (1 << 20) - 4096);
  auto back = to_host(mem.get(), mem.size());
  CHECK(slice(back, 0, 4096) == std::vector<std::byte>(4096));
  CHECK(slice(back, 4096, (1 << 20) - 4096) == pattern((1 << 20) - 4096, 33));
  CHECK(hipFileRead(r.handle, mem.get(), 1 << 20, 0, 4096) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.get(), 1, 0, 1 << 20) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.get(), 0, 0, (1 << 20) - 1) == 0);
  if (registered) REQUIRE(hipFileBufDeregister(mem.get()).err == hipFileSuccess);
}

TEST_CASE("Reads stop at end of file and return the short count", "[io]") {
  ClosedDriver guard;
  const std::size_t file_size = (6u << 20) + 1000;
  TempFile f(file_size, 34);
  Registered r(f.path(), O_RDONLY);
  const std::size_t want = 8u << 20;
  Guarded g(want);
  const std::size_t start = GENERATE(0, 4096, (6u << 20) - 1);
  CAPTURE(start);
  REQUIRE(hipFileRead(r.handle, g.data(), want, start, 0) == static_cast<ssize_t>(file_size - start));
  auto back = g.check();
  CHECK(slice(back, 0, file_size - start) == slice(pattern(file_size, 34), start, file_size - start));
  // Bytes past the data are untouched.
  CHECK(slice(back, file_size - start, want - (file_size - start)) ==
        std::vector<std::byte>(want - (file_size - start), kCanary));
  CHECK(hipFileRead(r.handle, g.data(), 100, file_size, 0) == 0);
  CHECK(hipFileRead(r.handle, g.data(), 100, file_size + 5000, 0) == 0);
}

TEST_CASE("An empty file reads as zero bytes and a zero size does nothing", "[io]") {
  ClosedDriver guard;
  TempFile f(0);
  Registered r(f.path(), O_RDWR);
  Guarded g(4096);
  CHECK(hipFileRead(r.handle, g.data(), 4096, 0, 0) == 0);
  CHECK(hipFileWrite(r.handle, g.data(), 0, 0, 0) == 0);
  g.check();
  CHECK(read_file(f.path()).empty());
}

TEST_CASE("Writing past the end of file extends it", "[io]") {
  ClosedDriver guard;
  TempFile f(100, 35);
  Registered r(f.path(), O_RDWR);
  DeviceMem mem(5000);
  to_device(mem.get(), pattern(5000, 36));
  REQUIRE(hipFileWrite(r.handle, mem.get(), 5000, 10000, 0) == 5000);
  auto file = read_file(f.path());
  REQUIRE(file.size() == 15000);
  CHECK(slice(file, 0, 100) == pattern(100, 35));
  CHECK(slice(file, 100, 9900) == std::vector<std::byte>(9900));
  CHECK(slice(file, 10000, 5000) == pattern(5000, 36));
}

TEST_CASE("Bad arguments give exact errors and touch nothing", "[io]") {
  ClosedDriver guard;
  TempFile f(1 << 16, 37);
  Registered r(f.path(), O_RDWR);
  Guarded g(4096);
  CHECK(hipFileRead(nullptr, g.data(), 16, 0, 0) == -hipFileHandleNotRegistered);
  CHECK(hipFileRead(reinterpret_cast<hipFileHandle_t>(0xdeadbeef), g.data(), 16, 0, 0) ==
        -hipFileHandleNotRegistered);
  CHECK(hipFileRead(r.handle, nullptr, 16, 0, 0) == -hipFileInvalidValue);
  // Negative offsets: -1 with errno EINVAL, as hipFile 0.4 and later (0.2: -hipFileInvalidValue).
  errno = 0;
  CHECK(hipFileRead(r.handle, g.data(), 16, -1, 0) == -1);
  CHECK(errno == EINVAL);
  errno = 0;
  CHECK(hipFileRead(r.handle, g.data(), 16, 0, -1) == -1);
  CHECK(errno == EINVAL);
  errno = 0;
  CHECK(hipFileRead(nullptr, g.data(), 16, LLONG_MIN, 0) == -1);  // before the handle is looked at
  CHECK(errno == EINVAL);
  CHECK(hipFileRead(r.handle, g.data(), 16, LLONG_MAX - 8, 0) == -hipFileInvalidValue);  // overflow
  CHECK(hipFileRead(r.handle, g.data(), SIZE_MAX, 0, 0) == -hipFileInvalidValue);
  errno = 0;
  CHECK(hipFileWrite(r.handle, g.data(), 16, -5, 0) == -1);
  CHECK(errno == EINVAL);
  errno = 0;
  CHECK(hipFileWrite(r.handle, g.data(), 16, 0, -4096) == -1);
  CHECK(errno == EINVAL);
  CHECK(hipFileWrite(r.handle, g.data(), SIZE_MAX / 2, 0, 0) == -hipFileInvalidValue);
  g.check();
  CHECK(read_file(f.path()) == pattern(1 << 16, 37));
}

TEST_CASE("Unregistered device memory is bounded by its allocation", "[io]") {
  ClosedDriver guard;
  TempFile f(1 << 20, 38);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(64 << 10);
  CHECK(hipFileRead(r.handle, mem.get(), (64 << 10) + 1, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.bytes() + 1000, (64 << 10) - 999, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.bytes() + 1000, (64 << 10) - 1000, 0, 0) == (64 << 10) - 1000);
  CHECK(slice(to_host(mem.get(), 64 << 10), 1000, (64 << 10) - 1000) == pattern((64 << 10) - 1000, 38));
}

TEST_CASE("Host, pinned and managed memory are I/O targets", "[io]") {
  ClosedDriver guard;
  const std::size_t n = (3u << 20) + 17;
  TempFile f(n, 39);
  Registered r(f.path(), O_RDWR);
  const auto expect = pattern(n, 39);

  std::vector<std::byte> pageable(n);
  REQUIRE(hipFileRead(r.handle, pageable.data(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(pageable == expect);

  void* pinned = nullptr;
  REQUIRE(hipHostMalloc(&pinned, n, 0) == hipSuccess);
  REQUIRE(hipFileRead(r.handle, pinned, n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(std::memcmp(pinned, expect.data(), n) == 0);

  void* managed = nullptr;
  REQUIRE(hipMallocManaged(&managed, n, hipMemAttachGlobal) == hipSuccess);
  REQUIRE(hipFileRead(r.handle, managed, n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(std::memcmp(managed, expect.data(), n) == 0);

  // Write back from pinned memory, shifted, and read it again.
  std::memset(pinned, 0x11, 4096);
  REQUIRE(hipFileWrite(r.handle, pinned, 4096, 5, 0) == 4096);
  auto file = read_file(f.path());
  CHECK(slice(file, 5, 4096) == std::vector<std::byte>(4096, std::byte{0x11}));
  CHECK(slice(file, 0, 5) == slice(expect, 0, 5));
  (void)hipHostFree(pinned);
  (void)hipFree(managed);
}

TEST_CASE("Many threads read and write one file at once", "[io]") {
  ClosedDriver guard;
  const std::size_t part = (2u << 20) + 4096 * 3 + 11;
  const int threads = 8;
  TempFile f(part * threads, 40);
  Registered r(f.path(), O_RDWR);
  std::vector<std::thread> pool;
  std::vector<int> ok(threads, 0);
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      DeviceMem mem(part);
      const off_t off = static_cast<off_t>(part) * t;
      if (hipFileRead(r.handle, mem.get(), part, off, 0) != static_cast<ssize_t>(part)) return;
      if (to_host(mem.get(), part) != pattern(part, 40, off)) return;
      to_device(mem.get(), pattern(part, 41, off));
      if (hipFileWrite(r.handle, mem.get(), part, off, 0) != static_cast<ssize_t>(part)) return;
      ok[t] = 1;
    });
  }
  for (auto& t : pool) t.join();
  CHECK(ok == std::vector<int>(threads, 1));
  CHECK(read_file(f.path()) == pattern(part * threads, 41));
}

TEST_CASE("A client fd with O_DIRECT serves unaligned requests too", "[io][environment]") {
  ClosedDriver guard;
  const std::size_t n = (5u << 20) + 777;
  TempFile f(n, 42);
  int fd = ::open(f.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) HIPFILE_SKIP("no O_DIRECT in " << test_dir() << "; set HIPFILE_TEST_DIR to a real disk");
  ::close(fd);
  Registered r(f.path(), O_RDWR | O_DIRECT);
  const auto expect = pattern(n, 42);
  for (std::size_t off : {std::size_t{0}, std::size_t{512}, std::size_t{4096}, std::size_t{4097}}) {
    const std::size_t len = n - off;
    Guarded g(len);
    CAPTURE(off);
    REQUIRE(hipFileRead(r.handle, g.data(), len + g.pad + 1, off, 0) == -hipFileInvalidValue);
    REQUIRE(hipFileRead(r.handle, g.data(), len, off, 0) == static_cast<ssize_t>(len));
    CHECK(g.check() == slice(expect, off, len));
  }
  // Aligned and unaligned writes, then read back through a plain descriptor.
  DeviceMem mem(3u << 20);
  to_device(mem.get(), pattern(3u << 20, 43));
  REQUIRE(hipFileWrite(r.handle, mem.get(), 2u << 20, 1u << 20, 0) == (2 << 20));
  REQUIRE(hipFileWrite(r.handle, mem.get(), 1000, 3, 0) == 1000);
  auto file = read_file(f.path());
  auto want = expect;
  auto w1 = pattern(2u << 20, 43);
  std::copy(w1.begin(), w1.end(), want.begin() + (1u << 20));
  std::copy(w1.begin(), w1.begin() + 1000, want.begin() + 3);
  CHECK(file == want);
}

TEST_CASE("A request larger than 2 GiB is served whole", "[io][large]") {
  ClosedDriver guard;
  const std::size_t n = (2ull << 30) + (1u << 20) + 5;
  TempFile f(0);
  // A sparse file with marked pages spread across it keeps the test fast.
  int fd = ::open(f.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(::ftruncate(fd, static_cast<off_t>(n)) == 0);
  const std::size_t marks[] = {0, 1ull << 30, 0x7ffff000ull, (2ull << 30) + 12345, n - 4096};
  for (std::size_t m : marks) {
    auto p = pattern(4096, m);
    REQUIRE(::pwrite(fd, p.data(), p.size(), static_cast<off_t>(m)) == 4096);
  }
  ::close(fd);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  for (std::size_t m : marks) {
    CAPTURE(m);
    CHECK(to_host(mem.bytes() + m, 4096) == pattern(4096, m));
  }
  CHECK(to_host(mem.bytes() + 8192, 4096) == std::vector<std::byte>(4096));
}

TEST_CASE("Reads with the driver closed fail with -1 and EINVAL", "[io]") {
  ClosedDriver guard;
  TempFile f(4096, 44);
  int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  ClosedDriver::close_all();
  Guarded g(4096);
  errno = 0;
  CHECK(hipFileRead(h, g.data(), 4096, 0, 0) == -1);
  CHECK(errno == EINVAL);
  CHECK(hipFileWrite(h, g.data(), 4096, 0, 0) == -1);
  g.check();
  CHECK(hipFileUseCount() == 0);
  ::close(fd);
}

TEST_CASE("HIPFILE_ALLOW_COMPAT_MODE=false disables the staging engine for device memory", "[io]") {
  ClosedDriver guard;
  ::setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
  TempFile f(8192, 45);
  {
    Registered r(f.path(), O_RDONLY);  // the driver opens here and reads the environment
    Guarded g(4096);
    CHECK(hipFileRead(r.handle, g.data(), 4096, 0, 0) == -hipFileIODisabled);
    g.check();
    std::vector<std::byte> host(4096);  // host memory needs no compat path
    CHECK(hipFileRead(r.handle, host.data(), 4096, 0, 0) == 4096);
  }
  ::unsetenv("HIPFILE_ALLOW_COMPAT_MODE");
}

TEST_CASE("Durable writes reach the file with HIPFILE_DURABLE_WRITES", "[io]") {
  ClosedDriver guard;
  ::setenv("HIPFILE_DURABLE_WRITES", "yes", 1);
  TempFile f(0);
  {
    Registered r(f.path(), O_RDWR);
    DeviceMem mem(1 << 20);
    to_device(mem.get(), pattern(1 << 20, 46));
    CHECK(hipFileWrite(r.handle, mem.get(), 1 << 20, 0, 0) == (1 << 20));
  }
  ::unsetenv("HIPFILE_DURABLE_WRITES");
  CHECK(read_file(f.path()) == pattern(1 << 20, 46));
}

TEST_CASE("Sync I/O is ordered after work queued on the NULL stream", "[io]") {
  ClosedDriver guard;
  const std::size_t n = GENERATE(std::size_t{64} << 10, std::size_t{6} << 20);  // inline and workers
  CAPTURE(n);
  TempFile f(n, 47);
  Registered r(f.path(), O_RDWR);
  DeviceMem mem(n);
  fill_device(mem.get(), 0, n);
  const auto data = pattern(n, 48);
  // Hold the NULL stream for a moment, then queue the copy that produces the data: the write
  // must wait for it, as a synchronous hipMemcpy would.
  REQUIRE(launch_host_func(nullptr, [](void*) { usleep(100000); }, nullptr) == hipSuccess);
  REQUIRE(hipMemcpyAsync(mem.get(), data.data(), n, hipMemcpyHostToDevice, nullptr) == hipSuccess);
  REQUIRE(hipFileWrite(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(read_file(f.path()) == data);
  // And a read is not overtaken by an earlier NULL-stream memset of the same buffer.
  REQUIRE(launch_host_func(nullptr, [](void*) { usleep(100000); }, nullptr) == hipSuccess);
  REQUIRE(hipMemsetAsync(mem.get(), 0, n, nullptr) == hipSuccess);
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(mem.get(), n) == data);
}

TEST_CASE("I/O ending at the largest file offset works where the kernel takes it", "[io][overflow]") {
  ClosedDriver guard;
  // tmpfs accepts offsets up to LLONG_MAX (sparse); other file systems answer EFBIG, and then
  // so must the library, without overflowing its own arithmetic on the way (UBSan checks that).
  std::string path = "/dev/shm/hipfile-maxoff-" + std::to_string(::getpid());
  int probe = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (probe < 0) {
    path = test_dir() + "/hipfile-maxoff-" + std::to_string(::getpid());
    probe = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  }
  REQUIRE(probe >= 0);
  const std::size_t n = GENERATE(std::size_t{4096}, std::size_t{5000}, std::size_t{3} << 20);
  CAPTURE(n);
  const hoff_t off = static_cast<hoff_t>(LLONG_MAX - static_cast<long long>(n));
  const auto data = pattern(n, 88);
  errno = 0;
  const ssize_t plain = ::pwrite(probe, data.data(), n, off);
  const int plain_errno = errno;
  REQUIRE(::ftruncate(probe, 0) == 0);
  ::close(probe);
  {
    Registered r(path, O_RDWR);
    const bool device = GENERATE(true, false);
    CAPTURE(device);
    DeviceMem dmem(n);
    std::vector<std::byte> hmem(data);
    void* mem = device ? dmem.get() : static_cast<void*>(hmem.data());
    if (device) to_device(mem, data);
    errno = 0;
    const ssize_t w = hipFileWrite(r.handle, mem, n, off, 0);
    if (plain == static_cast<ssize_t>(n)) {
      REQUIRE(w == static_cast<ssize_t>(n));
      if (device) fill_device(mem, 0, n); else std::fill(hmem.begin(), hmem.end(), std::byte{0});
      REQUIRE(hipFileRead(r.handle, mem, n, off, 0) == static_cast<ssize_t>(n));
      CHECK((device ? to_host(mem, n) : hmem) == data);
      // One byte more would pass the largest offset: refused, not wrapped.
      CHECK(hipFileRead(r.handle, mem, n, off + 1, 0) == -hipFileInvalidValue);
    } else {
      CHECK(w == -1);
      CHECK(errno == plain_errno);
    }
  }
  ::unlink(path.c_str());
}
