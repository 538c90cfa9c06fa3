// SPDX-License-Identifier: MIT
// The real cuFile loader (lib/fastpath/cufile.cpp) against a fake libcufile built by this suite
// (fake_cufile.c), loaded through HIPFILE_CUFILE_LIBRARY, all through the public C API. It
// proves what the in-process double of fastpath_test.cpp cannot: the dlopen, symbol lookup,
// driver open and properties decision, the ABI of every call, and the report.
//
// Platform cpu only (meson builds the fake there): the fake copies through the test program's
// hip-cpu. Elsewhere this program exits 77 (SKIP).
#include "catch.hpp"
#include <dlfcn.h>
#include <fcntl.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fake_cufile.h"
#include "helpers.hpp"
#include "test_support.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kSize = 256 << 10;
constexpr std::size_t kGuard = 8192;  // device bytes kept on both sides of the I/O window

const char* fake_path() {
  static const std::string path = [] {
    const char* p = std::getenv("HIPFILE_CUFILE_LIBRARY");
    return std::string(p ? p : "");
  }();
  return path.c_str();
}

// The fake, held open by the test itself: its counters survive the library's dlclose, and its
// control functions are reached without linking it. Each test starts with the driver closed,
// HIPFILE_CUFILE_LIBRARY pointing at the fake, and the fake at its defaults (GDS reported).
struct Fake {
  void* dl = nullptr;
  fake_cufile_set_fn set_fn = nullptr;
  fake_cufile_counters_fn counters_fn = nullptr;
  fake_cufile_reset_fn reset_fn = nullptr;
  ClosedDriver closed;

  Fake() {
    REQUIRE(fake_path()[0] != '\0');
    ::setenv("HIPFILE_CUFILE_LIBRARY", fake_path(), 1);
    dl = dlopen(fake_path(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(dl != nullptr);
    set_fn = reinterpret_cast<fake_cufile_set_fn>(dlsym(dl, "fake_cufile_set"));
    counters_fn = reinterpret_cast<fake_cufile_counters_fn>(dlsym(dl, "fake_cufile_counters"));
    reset_fn = reinterpret_cast<fake_cufile_reset_fn>(dlsym(dl, "fake_cufile_reset"));
    REQUIRE((set_fn && counters_fn && reset_fn));
    reset_fn();
  }
  ~Fake() {
    ClosedDriver::close_all();
    reset_fn();
    dlclose(dl);
    ::setenv("HIPFILE_CUFILE_LIBRARY", fake_path(), 1);
  }
  Fake(const Fake&) = delete;
  Fake& operator=(const Fake&) = delete;

  fake_cufile_control_t control = with_gds();  // what apply() installs; edit it first
  void apply() { set_fn(&control); }
  static fake_cufile_control_t with_gds() {
    fake_cufile_control_t c{};
    c.gds = 1;
    return c;
  }
  fake_cufile_counters_t counters() const {
    fake_cufile_counters_t c{};
    counters_fn(&c);
    return c;
  }
};

std::string report() {
  char buf[HIPFILE_FASTPATH_REPORT_MAX];
  REQUIRE(hipFileDriverGetFastpathReport(buf, sizeof buf).err == hipFileSuccess);
  return buf;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

hipFileStatsL1_t stats_now() {
  hipFileStatsL1_t s{};
  REQUIRE(hipFileGetStatsExL1(&s, sizeof s).err == hipFileSuccess);
  return s;
}

// The statistics when it is made; since() is what was counted from then on, per path and op.
struct Counted {
  hipFileStatsL1_t before = stats_now();
  hipFileStatsCounters_t since(hipFileStatsPath_t path, hipFileStatsOp_t op) const {
    const hipFileStatsCounters_t now = stats_now().path[path][op];
    const hipFileStatsCounters_t& was = before.path[path][op];
    return {now.ops - was.ops, now.bytes - was.bytes, now.errors - was.errors, now.time_ns - was.time_ns};
  }
};

// Device memory with a 4 KiB-aligned I/O window of kSize bytes after kGuard bytes of guard.
struct Window {
  DeviceMem mem{kSize + 2 * kGuard + 4096};
  std::size_t off = 0;  // buffer offset of the window from mem.get()
  Window() {
    const auto a = reinterpret_cast<std::uintptr_t>(mem.get());
    off = static_cast<std::size_t>((4096 - a % 4096) % 4096) + kGuard;
    fill_device(mem.get(), 0xAB, mem.size());
  }
  // Every byte outside [off, off + n) still holds the fill.
  bool guards_intact(std::size_t n) const {
    const std::vector<std::byte> all = to_host(mem.get(), mem.size());
    for (std::size_t i = 0; i < all.size(); ++i)
      if ((i < off || i >= off + n) && all[i] != std::byte{0xAB}) return false;
    return true;
  }
};

// O_DIRECT must work in the test directory: the library registers its O_DIRECT descriptor with
// cuFile, and without one a file is engine-only by design.
bool direct_io_here() {
  TempFile probe(4096, 1);
  int fd = ::open(probe.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

#define REQUIRE_DIRECT_IO() \
  if (!direct_io_here()) HIPFILE_SKIP("O_DIRECT does not work in " << test_dir() << "; set HIPFILE_TEST_DIR to a real disk")

}  // namespace

TEST_CASE("GDS reported: libcufile is loaded and aligned device I/O on registered files goes to it", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  Fake fake;
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const std::string r = report();
  CAPTURE(r);
  CHECK(contains(r, "fastpath=cufile "));
  CHECK(contains(r, std::string("library=") + fake_path() + " "));
  CHECK(contains(r, "gds=yes "));
  CHECK(contains(r, "nvfs version 2.20"));

  TempFile file(kSize, 5);
  Registered reg(file.path(), O_RDWR);
  CHECK(fake.counters().handle_register == 1);
  Window w;
  const Counted counted;

  REQUIRE(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
  CHECK(to_host(w.mem.bytes() + w.off, kSize) == pattern(kSize, 5));
  CHECK(w.guards_intact(kSize));
  to_device(w.mem.bytes() + w.off, pattern(kSize, 6));
  REQUIRE(hipFileWrite(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
  CHECK(read_file(file.path()) == pattern(kSize, 6));

  const fake_cufile_counters_t c = fake.counters();
  CHECK(c.reads == 1);
  CHECK(c.read_bytes == kSize);
  CHECK(c.writes == 1);
  CHECK(c.write_bytes == kSize);
  CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpRead).ops == 1);
  CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpRead).bytes == kSize);
  CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpWrite).ops == 1);
  CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpWrite).bytes == kSize);
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).ops == 0);
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpWrite).ops == 0);
}

TEST_CASE("No GDS reported: libcufile is opened and its driver closed, and the engine serves all I/O", "[cufile][environment]") {
  if (::access("/proc/driver/nvidia-fs", F_OK) == 0)
    HIPFILE_SKIP("/proc/driver/nvidia-fs exists here, which means GDS whatever the fake says");
  REQUIRE_DIRECT_IO();
  Fake fake;
  fake.control.gds = 0;
  fake.apply();
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const std::string r = report();
  CAPTURE(r);
  CHECK(contains(r, "fastpath=none "));
  CHECK(contains(r, std::string("library=") + fake_path() + " "));
  CHECK(contains(r, "gds=no "));
  CHECK(contains(r, "nvfs version 0.0, status flags 0x0"));
  fake_cufile_counters_t c = fake.counters();
  CHECK(c.driver_open == 1);
  CHECK(c.get_properties == 1);
  CHECK(c.driver_close == 1);  // closed again at once, not at the driver's close

  TempFile file(kSize, 7);
  Registered reg(file.path(), O_RDWR);
  Window w;
  const Counted counted;
  REQUIRE(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
  CHECK(to_host(w.mem.bytes() + w.off, kSize) == pattern(kSize, 7));
  REQUIRE(hipFileWrite(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).ops == 1);
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).bytes == kSize);
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpWrite).bytes == kSize);
  CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpRead).ops == 0);
  c = fake.counters();
  CHECK(c.handle_register == 0);
  CHECK(c.reads == 0);
  CHECK(c.writes == 0);
}

TEST_CASE("libcufile is never unloaded (RTLD_NODELETE), with or without GDS", "[cufile]") {
  if (::access("/proc/driver/nvidia-fs", F_OK) == 0) return;
  const bool gds = GENERATE(false, true);
  CAPTURE(gds);
  {
    Fake fake;
    fake.control.gds = gds ? 1 : 0;
    fake.apply();
    REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
    CHECK(contains(report(), gds ? "gds=yes " : "gds=no "));
    REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  }  // the test's own reference is dropped too
  // Nobody holds a reference now; the code must still be mapped.
  void* still = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
  CHECK(still != nullptr);
  if (still != nullptr) dlclose(still);
}

TEST_CASE("cuFileDriverOpen or cuFileDriverGetProperties failing leaves the engine in charge", "[cufile]") {
  Fake fake;
  SECTION("cuFileDriverOpen") {
    fake.control.driver_open_error = hipFilePlatformNotSupported;
    fake.apply();
    REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
    const std::string r = report();
    CAPTURE(r);
    CHECK(contains(r, "fastpath=none "));
    CHECK(contains(r, "cuFileDriverOpen failed (err 5007, cu_err 0)"));
    CHECK(fake.counters().driver_close == 0);  // nothing to close: it never opened
    CHECK(fake.counters().get_properties == 0);
  }
  SECTION("cuFileDriverGetProperties") {
    fake.control.properties_error = hipFileDriverInvalidProps;
    fake.apply();
    REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
    const std::string r = report();
    CAPTURE(r);
    CHECK(contains(r, "fastpath=none "));
    CHECK(contains(r, "cuFileDriverGetProperties failed (err 5002, cu_err 0)"));
    CHECK(fake.counters().driver_close == 1);
  }
}

TEST_CASE("A file libcufile refuses to register is engine-only", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  Fake fake;
  fake.control.refuse_register = 1;
  fake.apply();
  TempFile file(kSize, 9);
  Registered reg(file.path(), O_RDONLY);  // the implicit driver open loads the fake
  CHECK(contains(report(), "fastpath=cufile "));
  Window w;
  const Counted counted;
  REQUIRE(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
  CHECK(to_host(w.mem.bytes() + w.off, kSize) == pattern(kSize, 9));
  CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).ops == 1);
  CHECK(fake.counters().handle_register == 0);
  CHECK(fake.counters().reads == 0);
}

TEST_CASE("Host memory never goes to libcufile", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  Fake fake;
  TempFile file(kSize, 11);
  Registered reg(file.path(), O_RDONLY);
  REQUIRE(fake.counters().handle_register == 1);
  const Counted counted;
  SECTION("pinned") {
    void* pinned = nullptr;
    HIP_CHECK(hipHostMalloc(&pinned, kSize, 0));
    REQUIRE(hipFileRead(reg.handle, pinned, kSize, 0, 0) == static_cast<ssize_t>(kSize));
    CHECK(std::memcmp(pinned, pattern(kSize, 11).data(), kSize) == 0);
    HIP_CHECK(hipHostFree(pinned));
  }
  SECTION("pageable, page-aligned") {
    void* page = nullptr;
    REQUIRE(posix_memalign(&page, 4096, kSize) == 0);
    REQUIRE(hipFileRead(reg.handle, page, kSize, 0, 0) == static_cast<ssize_t>(kSize));
    CHECK(std::memcmp(page, pattern(kSize, 11).data(), kSize) == 0);
    std::free(page);
  }
  CHECK(counted.since(hipFileStatsPathHost, hipFileStatsOpRead).ops == 1);
  CHECK(fake.counters().reads == 0);
}

TEST_CASE("A misaligned device request is served by the engine, not libcufile", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  Fake fake;
  TempFile file(kSize, 13);
  Registered reg(file.path(), O_RDONLY);
  REQUIRE(fake.counters().handle_register == 1);
  Window w;
  SECTION("file offset") {
    REQUIRE(hipFileRead(reg.handle, w.mem.get(), 8192, 512, static_cast<hoff_t>(w.off)) == 8192);
    CHECK(to_host(w.mem.bytes() + w.off, 8192) == pattern(8192, 13, 512));
  }
  SECTION("size") {
    REQUIRE(hipFileRead(reg.handle, w.mem.get(), 8292, 0, static_cast<hoff_t>(w.off)) == 8292);
    CHECK(to_host(w.mem.bytes() + w.off, 8292) == pattern(8292, 13));
  }
  SECTION("memory address") {
    REQUIRE(hipFileRead(reg.handle, w.mem.get(), 8192, 0, static_cast<hoff_t>(w.off + 256)) == 8192);
    CHECK(to_host(w.mem.bytes() + w.off + 256, 8192) == pattern(8192, 13));
  }
  CHECK(fake.counters().reads == 0);
}

namespace {
struct Failure {
  const char* name;
  int kind;  // fake_cufile_failure
  int value;
};
// What libcufile may answer that the engine can serve: the remaining range goes to the engine.
constexpr Failure kRetried[] = {
    {"-1/ENODEV", FAKE_CUFILE_ERRNO, ENODEV},
    {"-1/EREMOTEIO", FAKE_CUFILE_ERRNO, EREMOTEIO},
    {"-1/EINVAL", FAKE_CUFILE_ERRNO, EINVAL},
    {"-CU_FILE_PLATFORM_NOT_SUPPORTED", FAKE_CUFILE_OP, hipFilePlatformNotSupported},
    {"-CU_FILE_IO_NOT_SUPPORTED", FAKE_CUFILE_OP, hipFileIONotSupported},
    {"a short count", FAKE_CUFILE_SHORT, 0},
};
constexpr std::size_t kMovedFirst = 64 << 10;  // what the fake moves before it fails
}  // namespace

TEST_CASE("A libcufile failure the engine can serve is finished by the engine, byte for byte", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  for (const Failure& f : kRetried) {
    CAPTURE(f.name);
    Fake fake;
    fake.control.failure = f.kind;
    fake.control.fail_value = f.value;
    fake.control.fail_after = kMovedFirst;
    fake.apply();
    // A file with bytes on both sides of the I/O range: nothing outside it may change.
    constexpr std::size_t kAt = 64 << 10;
    TempFile file(kAt + kSize + kAt, 15);
    Registered reg(file.path(), O_RDWR);
    REQUIRE(fake.counters().handle_register == 1);
    Window w;
    const Counted counted;

    REQUIRE(hipFileRead(reg.handle, w.mem.get(), kSize, kAt, static_cast<hoff_t>(w.off)) ==
            static_cast<ssize_t>(kSize));
    CHECK(to_host(w.mem.bytes() + w.off, kSize) == pattern(kSize, 15, kAt));
    CHECK(w.guards_intact(kSize));

    std::vector<std::byte> expected = pattern(kAt + kSize + kAt, 15);
    const std::vector<std::byte> data = pattern(kSize, 16);
    std::memcpy(expected.data() + kAt, data.data(), kSize);
    to_device(w.mem.bytes() + w.off, data);
    REQUIRE(hipFileWrite(reg.handle, w.mem.get(), kSize, kAt, static_cast<hoff_t>(w.off)) ==
            static_cast<ssize_t>(kSize));
    CHECK(read_file(file.path()) == expected);

    const fake_cufile_counters_t c = fake.counters();
    CHECK(c.reads == 1);
    CHECK(c.read_bytes == kMovedFirst);
    CHECK(c.writes == 1);
    CHECK(c.write_bytes == kMovedFirst);
    // The engine finished both requests, so both count under its path, whole.
    CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).ops == 1);
    CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpRead).bytes == kSize);
    CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpWrite).ops == 1);
    CHECK(counted.since(hipFileStatsPathEngine, hipFileStatsOpWrite).bytes == kSize);
    CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpRead).ops == 0);
    CHECK(counted.since(hipFileStatsPathCufile, hipFileStatsOpWrite).ops == 0);
  }
}

TEST_CASE("EIO and other libcufile errors are returned unchanged", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  Fake fake;
  TempFile file(kSize, 17);
  Registered reg(file.path(), O_RDWR);
  REQUIRE(fake.counters().handle_register == 1);
  Window w;
  SECTION("-1 with errno EIO") {
    fake.control.failure = FAKE_CUFILE_ERRNO;
    fake.control.fail_value = EIO;
    fake.apply();
    errno = 0;
    CHECK(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -1);
    CHECK(errno == EIO);
    errno = 0;
    CHECK(hipFileWrite(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -1);
    CHECK(errno == EIO);
  }
  SECTION("a negative CUfileOpError") {
    fake.control.failure = FAKE_CUFILE_OP;
    fake.control.fail_value = hipFileInternalError;
    fake.apply();
    CHECK(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -hipFileInternalError);
    CHECK(hipFileWrite(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -hipFileInternalError);
  }
  CHECK(fake.counters().reads == 1);
  CHECK(fake.counters().writes == 1);
}

TEST_CASE("With compat mode disabled a refused file cannot do device I/O", "[cufile][environment]") {
  REQUIRE_DIRECT_IO();
  ::setenv("HIPFILE_ALLOW_COMPAT_MODE", "false", 1);
  {
    Fake fake;
    SECTION("registration refused: hipFileIODisabled") {
      fake.control.refuse_register = 1;
      fake.apply();
      TempFile file(kSize, 19);
      Registered reg(file.path(), O_RDONLY);
      Window w;
      CHECK(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -hipFileIODisabled);
      CHECK(fake.counters().reads == 0);
    }
    SECTION("registered, ENODEV: returned, not retried") {
      fake.control.failure = FAKE_CUFILE_ERRNO;
      fake.control.fail_value = ENODEV;
      fake.apply();
      TempFile file(kSize, 19);
      Registered reg(file.path(), O_RDONLY);
      Window w;
      errno = 0;
      CHECK(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == -1);
      CHECK(errno == ENODEV);
      CHECK(fake.counters().reads == 1);
    }
  }
  ::unsetenv("HIPFILE_ALLOW_COMPAT_MODE");
}

TEST_CASE("HIPFILE_FORCE_COMPAT_MODE never opens libcufile", "[cufile]") {
  Fake fake;
  ::setenv("HIPFILE_FORCE_COMPAT_MODE", "true", 1);
  {
    TempFile file(kSize, 21);
    Registered reg(file.path(), O_RDONLY);
    Window w;
    REQUIRE(hipFileRead(reg.handle, w.mem.get(), kSize, 0, static_cast<hoff_t>(w.off)) == static_cast<ssize_t>(kSize));
    CHECK(to_host(w.mem.bytes() + w.off, kSize) == pattern(kSize, 21));
    const std::string r = report();
    CAPTURE(r);
    CHECK(contains(r, "fastpath=none library=none gds=no reason=compat mode is forced"));
  }
  ::unsetenv("HIPFILE_FORCE_COMPAT_MODE");
  const fake_cufile_counters_t c = fake.counters();
  CHECK(c.driver_open == 0);
  CHECK(c.handle_register == 0);
  CHECK(c.reads == 0);
}

TEST_CASE("Every driver open replaces the report", "[cufile]") {
  Fake fake;
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(contains(report(), "fastpath=cufile "));
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(contains(report(), "fastpath=cufile "));  // kept after the close

  fake.control.gds = 0;
  fake.apply();
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  if (::access("/proc/driver/nvidia-fs", F_OK) != 0) CHECK(contains(report(), "fastpath=none "));
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);

  ::unsetenv("HIPFILE_CUFILE_LIBRARY");
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const std::string r = report();
  CAPTURE(r);
  CHECK(contains(r, "fastpath=none library=none gds=no reason=no fastpath exists on platform cpu"));
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  CHECK(fake.counters().driver_open == 2);  // the third open did not touch it
}

TEST_CASE("A missing libcufile is reported with the path tried", "[cufile]") {
  ClosedDriver closed;
  const std::string missing = test_dir() + "/no-such-libcufile.so.0";
  ::setenv("HIPFILE_CUFILE_LIBRARY", missing.c_str(), 1);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const std::string r = report();
  CAPTURE(r);
  CHECK(contains(r, "fastpath=none library=none gds=no reason=libcufile not loadable (tried " + missing));
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  ::setenv("HIPFILE_CUFILE_LIBRARY", fake_path(), 1);
}
