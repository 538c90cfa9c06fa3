// SPDX-License-Identifier: MIT
// Fastpath selection and retry (lib/fastpath/select.cpp, doc/fastpaths.md). No real fastpath
// exists on platform=cpu, so the engine must serve everything; a fake fastpath injected through
// the test hook then proves the selection and the retry rules through the C API.
#include "catch.hpp"
#include <fcntl.h>
#include <sys/stat.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "fastpath/fastpath.hpp"
#include "helpers.hpp"
#include "sys/posix.hpp"
#include "test_support.hpp"

using namespace hipfile::test;
namespace fp = hipfile::fastpath;
using hipfile::engine::IoResult;
using hipfile::engine::Status;

namespace {

enum class Mode {
  Full,             // moves everything (pread/pwrite on the buffered fd)
  Enodev,           // moves nothing, ENODEV
  HalfThenRemote,   // moves the first half (4 KiB multiple), then EREMOTEIO
  HalfThenEio,      // moves the first half, then EIO (not retried)
  Eio,              // moves nothing, EIO
  ShortCount,       // moves `short_bytes` (clipped at end of file) and reports success
  RefuseRegister,   // attach refuses every file
};

class Fake final : public fp::Fastpath {
 public:
  Mode mode = Mode::Full;
  std::size_t short_bytes = 4096;
  std::atomic<int> calls{0};
  std::atomic<int> attached{0};

  const char* name() const noexcept override { return "fake"; }
  fp::Kind kind() const noexcept override { return fp::Kind::Cufile; }
  std::function<void()> on_attach;  // runs inside attach, between the implicit open and the insert
  std::shared_ptr<void> attach(const fp::File&) override {
    if (on_attach) on_attach();
    if (mode == Mode::RefuseRegister) return nullptr;
    ++attached;
    return std::make_shared<int>(1);
  }
  bool usable_for(const fp::File& f, hipfile::gpu::MemKind kind, int, const void*, off_t, std::size_t) const override {
    return kind == hipfile::gpu::MemKind::Device && f.fastpath_state != nullptr;
  }
  IoResult read(const fp::File& f, void* mem, std::size_t size, off_t off) override {
    return io(f, mem, size, off, true);
  }
  IoResult write(const fp::File& f, const void* mem, std::size_t size, off_t off) override {
    return io(f, const_cast<void*>(mem), size, off, false);
  }

 private:
  // Device memory on hip-cpu is host memory, so the fake can move bytes with pread/pwrite.
  IoResult io(const fp::File& f, void* mem, std::size_t size, off_t off, bool rd) {
    ++calls;
    IoResult r;
    std::size_t n = size;
    switch (mode) {
      case Mode::Enodev: r.status = Status::of_errno(ENODEV); return r;
      case Mode::Eio: r.status = Status::of_errno(EIO); return r;
      case Mode::HalfThenRemote:
      case Mode::HalfThenEio: n = (size / 2) & ~std::size_t{4095}; break;
      case Mode::ShortCount: n = std::min(size, short_bytes); break;
      default: break;
    }
    // Through host memory and hipMemcpy: hip-cpu's device memory is not for direct host access.
    std::vector<std::byte> host(n);
    ssize_t done;
    if (rd) {
      done = ::pread(f.buffered_fd, host.data(), n, off);
      if (done > 0 && hipMemcpy(mem, host.data(), static_cast<std::size_t>(done), hipMemcpyHostToDevice) != hipSuccess)
        done = -1;
    } else {
      done = hipMemcpy(host.data(), mem, n, hipMemcpyDeviceToHost) == hipSuccess ? ::pwrite(f.buffered_fd, host.data(), n, off) : -1;
    }
    if (done < 0) {
      r.status = Status::of_errno(EFAULT);
      return r;
    }
    r.bytes = done;
    if (mode == Mode::HalfThenRemote) r.status = Status::of_errno(EREMOTEIO);
    if (mode == Mode::HalfThenEio) r.status = Status::of_errno(EIO);
    return r;
  }
};

// Installs a fake for one test and removes it (with the driver closed) afterwards.
struct Injected {
  std::shared_ptr<Fake> fake = std::make_shared<Fake>();
  ClosedDriver closed;
  explicit Injected(Mode m) {
    fake->mode = m;
    fp::set_test_fastpath(fake);
  }
  ~Injected() {
    ClosedDriver::close_all();
    fp::set_test_fastpath(nullptr);
  }
};

hipFileStatsCounters_t counters(hipFileStatsPath_t path, hipFileStatsOp_t op) {
  hipFileStatsL1_t s{};
  REQUIRE(hipFileGetStatsExL1(&s, sizeof s).err == hipFileSuccess);
  return s.path[path][op];
}

// Device memory with a 4 KiB-aligned window: returns the offset from get() to use.
std::size_t aligned_offset(const DeviceMem& m) {
  auto a = reinterpret_cast<std::uintptr_t>(m.get());
  return static_cast<std::size_t>((4096 - a % 4096) % 4096);
}

constexpr std::size_t kSize = 256 << 10;

}  // namespace

TEST_CASE("Without a fastpath (platform cpu) device I/O is served by the engine", "[fastpath]") {
  ClosedDriver closed;
  CHECK(fp::load(hipfile::engine::Config{}) == nullptr);
  TempFile file(kSize, 3);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  const auto engine_before = counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops;
  const auto cufile_before = counters(hipFileStatsPathCufile, hipFileStatsOpRead).ops;
  const auto amd_before = counters(hipFileStatsPathAmd, hipFileStatsOpRead).ops;
  REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
  CHECK(to_host(mem.bytes() + off, kSize) == pattern(kSize, 3));
  CHECK(counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops == engine_before + 1);
  CHECK(counters(hipFileStatsPathCufile, hipFileStatsOpRead).ops == cufile_before);
  CHECK(counters(hipFileStatsPathAmd, hipFileStatsOpRead).ops == amd_before);
}

TEST_CASE("A working fastpath serves aligned device I/O and is counted under its path", "[fastpath]") {
  Injected inj(Mode::Full);
  TempFile file(kSize, 5);
  Registered reg(file.path(), O_RDWR);
  CHECK(inj.fake->attached == 1);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  const auto before = counters(hipFileStatsPathCufile, hipFileStatsOpRead).ops;
  REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
  CHECK(inj.fake->calls == 1);
  CHECK(to_host(mem.bytes() + off, kSize) == pattern(kSize, 5));
  CHECK(counters(hipFileStatsPathCufile, hipFileStatsOpRead).ops == before + 1);
}

TEST_CASE("HIPFILE_FORCE_COMPAT_MODE keeps every request on the engine", "[fastpath]") {
  ::setenv("HIPFILE_FORCE_COMPAT_MODE", "true", 1);
  {
    Injected inj(Mode::Full);
    TempFile file(kSize, 7);
    Registered reg(file.path(), O_RDONLY);
    DeviceMem mem(kSize + 4096);
    const std::size_t off = aligned_offset(mem);
    const auto before = counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops;
    REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
    CHECK(inj.fake->calls == 0);
    CHECK(inj.fake->attached == 0);  // not even loaded
    CHECK(to_host(mem.bytes() + off, kSize) == pattern(kSize, 7));
    CHECK(counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops == before + 1);
  }
  ::unsetenv("HIPFILE_FORCE_COMPAT_MODE");
}

TEST_CASE("ENODEV from the fastpath: the engine serves the whole request", "[fastpath]") {
  Injected inj(Mode::Enodev);
  TempFile file(kSize, 9);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  const auto before = counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops;
  REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
  CHECK(inj.fake->calls == 1);
  CHECK(to_host(mem.bytes() + off, kSize) == pattern(kSize, 9));
  CHECK(counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops == before + 1);
}

TEST_CASE("Half moved then EREMOTEIO: the engine serves the rest, keeping the first half", "[fastpath]") {
  Injected inj(Mode::HalfThenRemote);
  SECTION("read") {
    TempFile file(kSize, 11);
    Registered reg(file.path(), O_RDONLY);
    DeviceMem mem(kSize + 4096);
    const std::size_t off = aligned_offset(mem);
    fill_device(mem.get(), 0, kSize + 4096);
    REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 4096, static_cast<hoff_t>(off)) ==
            static_cast<ssize_t>(kSize - 4096));  // from 4096 to end of file
    CHECK(inj.fake->calls == 1);
    CHECK(to_host(mem.bytes() + off, kSize - 4096) == pattern(kSize - 4096, 11, 4096));
  }
  SECTION("write") {
    TempFile file(0, 1);
    Registered reg(file.path(), O_RDWR);
    DeviceMem mem(kSize + 4096);
    const std::size_t off = aligned_offset(mem);
    to_device(mem.bytes() + off, pattern(kSize, 13));
    REQUIRE(hipFileWrite(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
    CHECK(inj.fake->calls == 1);
    CHECK(read_file(file.path()) == pattern(kSize, 13));
  }
}

TEST_CASE("Half moved then EIO: the half the fastpath moved is returned", "[fastpath][progress]") {
  Injected inj(Mode::HalfThenEio);
  TempFile file(kSize, 21);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize / 2));
  CHECK(inj.fake->calls == 1);
  CHECK(to_host(mem.bytes() + off, kSize / 2) == pattern(kSize / 2, 21));
}

TEST_CASE("Half moved, then the engine fails the rest: the fastpath's half is returned", "[fastpath][progress]") {
  Injected inj(Mode::HalfThenRemote);
  TempFile file(kSize, 23);
  Registered reg(file.path(), O_RDWR);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  hipfile::sys::ops.pread = [](int, void*, size_t, off_t) -> ssize_t { return errno = EIO, -1; };
  hipfile::sys::ops.pwrite = [](int, const void*, size_t, off_t) -> ssize_t { return errno = ENOSPC, -1; };
  const ssize_t rd = hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off));
  const ssize_t wr = hipFileWrite(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off));
  hipfile::sys::reset_ops();
  CHECK(rd == static_cast<ssize_t>(kSize / 2));
  CHECK(wr == static_cast<ssize_t>(kSize / 2));
  CHECK(to_host(mem.bytes() + off, kSize / 2) == pattern(kSize / 2, 23));
}

TEST_CASE("EIO from the fastpath is returned, not retried", "[fastpath]") {
  Injected inj(Mode::Eio);
  TempFile file(kSize, 15);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  const auto before = counters(hipFileStatsPathEngine, hipFileStatsOpRead).ops;
  errno = 0;
  CHECK(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == -1);
  CHECK(errno == EIO);
  CHECK(inj.fake->calls == 1);
  const auto after = counters(hipFileStatsPathEngine, hipFileStatsOpRead);
  CHECK(after.ops == before + 1);  // counted once, as an error
}

TEST_CASE("A misaligned request never reaches the fastpath", "[fastpath]") {
  Injected inj(Mode::Eio);  // would fail the request if asked
  TempFile file(kSize, 17);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 8192);
  const std::size_t off = aligned_offset(mem);
  SECTION("file offset") {
    REQUIRE(hipFileRead(reg.handle, mem.get(), 8192, 512, static_cast<hoff_t>(off)) == 8192);
    CHECK(to_host(mem.bytes() + off, 8192) == pattern(8192, 17, 512));
  }
  SECTION("size") {
    REQUIRE(hipFileRead(reg.handle, mem.get(), 8192 + 100, 0, static_cast<hoff_t>(off)) == 8192 + 100);
    CHECK(to_host(mem.bytes() + off, 8292) == pattern(8292, 17));
  }
  SECTION("memory address") {
    REQUIRE(hipFileRead(reg.handle, mem.get(), 8192, 0, static_cast<hoff_t>(off + 256)) == 8192);
    CHECK(to_host(mem.bytes() + off + 256, 8192) == pattern(8192, 17));
  }
  CHECK(inj.fake->calls == 0);
}

TEST_CASE("A short fastpath read is finished by the engine, which confirms end of file", "[fastpath]") {
  Injected inj(Mode::ShortCount);
  const std::size_t file_size = 6000;  // the aligned 8 KiB request runs past end of file
  TempFile file(file_size, 19);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(8192 + 4096);
  const std::size_t off = aligned_offset(mem);
  SECTION("the fastpath stops at end of file") { inj.fake->short_bytes = 8192; }
  SECTION("the fastpath stops early") { inj.fake->short_bytes = 4096; }
  REQUIRE(hipFileRead(reg.handle, mem.get(), 8192, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(file_size));
  CHECK(inj.fake->calls == 1);
  CHECK(to_host(mem.bytes() + off, file_size) == pattern(file_size, 19));
}

TEST_CASE("A file the fastpath refuses to register is engine-only", "[fastpath]") {
  Injected inj(Mode::RefuseRegister);
  TempFile file(kSize, 21);
  Registered reg(file.path(), O_RDONLY);
  DeviceMem mem(kSize + 4096);
  const std::size_t off = aligned_offset(mem);
  REQUIRE(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == static_cast<ssize_t>(kSize));
  CHECK(inj.fake->calls == 0);
  CHECK(to_host(mem.bytes() + off, kSize) == pattern(kSize, 21));
}

TEST_CASE("With compat mode disabled a fastpath failure is returned, and unselectable I/O is refused",
          "[fastpath]") {
  ::setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
  {
    Injected inj(Mode::Enodev);
    TempFile file(kSize, 23);
    Registered reg(file.path(), O_RDONLY);
    DeviceMem mem(kSize + 4096);
    const std::size_t off = aligned_offset(mem);
    errno = 0;
    CHECK(hipFileRead(reg.handle, mem.get(), kSize, 0, static_cast<hoff_t>(off)) == -1);
    CHECK(errno == ENODEV);
    CHECK(inj.fake->calls == 1);
    // Misaligned: no fastpath takes it and the engine may not.
    CHECK(hipFileRead(reg.handle, mem.get(), 4096, 512, static_cast<hoff_t>(off)) == -hipFileIODisabled);
    CHECK(inj.fake->calls == 1);
  }
  ::unsetenv("HIPFILE_ALLOW_COMPAT_MODE");
}

TEST_CASE("A registration racing the last close never survives it", "[fastpath][race]") {
  Injected inj(Mode::Full);
  TempFile file(kSize, 25);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::atomic<bool> closing{false};
  // The close is called while the registration is between its implicit open and its insert.
  inj.fake->on_attach = [&] {
    std::thread([&] {
      closing = true;
      (void)hipFileDriverClose();
    }).detach();
    while (!closing) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the close has every chance to finish
  };
  hipFileHandle_t h = nullptr;
  REQUIRE(register_fd(fd, &h).err == hipFileSuccess);
  inj.fake->on_attach = nullptr;
  while (hipFileUseCount() > 0) std::this_thread::yield();  // the close ran (after the insert, if serialised)
  // The last close removes every registration: one made before it is gone, not kept in a closed driver.
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  std::vector<std::byte> host(4096);
  CHECK(hipFileRead(h, host.data(), host.size(), 0, 0) == -hipFileHandleNotRegistered);
  ::close(fd);
}

TEST_CASE("gds_kernel_support: nvidia-fs in /proc or /dev, or P2PDMA asked; nothing else") {
  std::string r = "/tmp/hipfile-gds-root-XXXXXX";
  REQUIRE(::mkdtemp(r.data()) != nullptr);
  auto touch = [](const std::string& path) {
    const int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    ::close(fd);
  };
  using hipfile::fastpath::gds_kernel_support;
  CHECK_FALSE(gds_kernel_support(false, r));  // neither /proc nor /dev
  CHECK(gds_kernel_support(true, r));
  REQUIRE(::mkdir((r + "/dev").c_str(), 0700) == 0);
  touch(r + "/dev/nvidia0");
  CHECK_FALSE(gds_kernel_support(false, r));
  touch(r + "/dev/nvidia-fs3");
  CHECK(gds_kernel_support(false, r));
  REQUIRE(::unlink((r + "/dev/nvidia-fs3").c_str()) == 0);
  REQUIRE(::mkdir((r + "/proc").c_str(), 0700) == 0);
  REQUIRE(::mkdir((r + "/proc/driver").c_str(), 0700) == 0);
  CHECK_FALSE(gds_kernel_support(false, r));
  REQUIRE(::mkdir((r + "/proc/driver/nvidia-fs").c_str(), 0700) == 0);
  CHECK(gds_kernel_support(false, r));
  for (const char* p : {"/proc/driver/nvidia-fs", "/proc/driver", "/proc"}) (void)::rmdir((r + p).c_str());
  (void)::unlink((r + "/dev/nvidia0").c_str());
  (void)::rmdir((r + "/dev").c_str());
  (void)::rmdir(r.c_str());
}
