// SPDX-License-Identifier: MIT
// Page-cache-aware O_DIRECT: what the page cache holds is read from it even through an O_DIRECT
// client descriptor (O_DIRECT would read it from the disk again); what it does not hold takes
// the O_DIRECT descriptor for the aligned middle when the client asked for O_DIRECT.
#include <fcntl.h>
#include <sys/mman.h>

#include <memory>

#include <hipfile/hipfile_stats.h>

#include "../c_api/helpers.hpp"
#include "seam.hpp"
#include "sys/page_cache.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

bool has_odirect(int fd) { return (::fcntl(fd, F_GETFL) & O_DIRECT) != 0; }

// Where the test directory's file system has no O_DIRECT, an O_DIRECT case checks nothing.
#define SKIP_WITHOUT_ODIRECT(f) \
  if (!supports_odirect((f).path())) HIPFILE_SKIP("no O_DIRECT in " << test_dir() << "; set HIPFILE_TEST_DIR to a real disk")
// Where it keeps evicted pages, a not-cached case checks nothing.
#define SKIP_WITHOUT_EVICTION() HIPFILE_SKIP("the file system in " << test_dir() << " keeps evicted pages")

// The test's own answer, independent of the library's: mincore over a fresh mapping.
bool resident(const std::string& path, off_t offset, std::size_t length) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const long page = ::sysconf(_SC_PAGESIZE);
  const off_t first = offset - offset % page;
  const std::size_t span = static_cast<std::size_t>(offset - first) + length;
  void* p = ::mmap(nullptr, span, PROT_READ, MAP_SHARED, fd, first);
  ::close(fd);
  REQUIRE(p != MAP_FAILED);
  std::vector<unsigned char> vec((span + page - 1) / page);
  REQUIRE(::mincore(p, span, vec.data()) == 0);
  ::munmap(p, span);
  for (unsigned char v : vec)
    if ((v & 1) == 0) return false;
  return true;
}

// Drops [offset, offset + length) from the page cache; false where the file system keeps it.
bool evict(const std::string& path, off_t offset, std::size_t length) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::fdatasync(fd) == 0);
  (void)::posix_fadvise(fd, offset, static_cast<off_t>(length), POSIX_FADV_DONTNEED);
  ::close(fd);
  const long page = ::sysconf(_SC_PAGESIZE);
  for (std::size_t at = 0; at < length; at += static_cast<std::size_t>(page))
    if (resident(path, offset + static_cast<off_t>(at), 1)) return false;
  return true;
}

struct FdsUsed {
  bool direct = false, buffered = false;
};
FdsUsed fds_used(SyscallScript& s) {
  FdsUsed u;
  for (int fd : s.fds_used) (has_odirect(fd) ? u.direct : u.buffered) = true;
  return u;
}

// The statistics' split of one path and operation: bytes through the page cache, with O_DIRECT.
hipFileStatsSource_t moved(hipFileStatsPath_t path, hipFileStatsOp_t op) {
  auto s = std::make_unique<hipFileStatsL3_t>();
  REQUIRE(hipFileGetStatsExL3(s.get(), sizeof *s).err == hipFileSuccess);
  return s->source[path][op];
}

}  // namespace

TEST_CASE("range_cached agrees with mincore, without reading the file", "[page_cache]") {
  const std::size_t n = 8 * kMiB + 123;
  TempFile f(n, 70);  // just written: cached
  const bool mincore_only = GENERATE(false, true);  // true: as on kernels without cachestat(2)
  CAPTURE(mincore_only);
  hipfile::sys::ask_mincore_only(mincore_only);
  const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  CHECK(hipfile::sys::range_cached(fd, 0, n) == resident(f.path(), 0, n));
  CHECK(hipfile::sys::range_cached(fd, 4097, 5000) == resident(f.path(), 4097, 5000));
  CHECK_FALSE(hipfile::sys::range_cached(fd, 0, 0));           // an empty range
  CHECK_FALSE(hipfile::sys::range_cached(fd, -4096, 4096));    // a negative offset
  CHECK_FALSE(hipfile::sys::range_cached(fd, n + 8192, 4096));  // past the end: no page there
  CHECK_FALSE(hipfile::sys::range_cached(-1, 0, 4096));        // no descriptor
  // Large folios are dropped whole only: evict a range aligned to 4 MiB.
  if (!evict(f.path(), static_cast<off_t>(4 * kMiB), n - 4 * kMiB)) {
    // The cached half above was checked: a note, not a skip.
    WARN("the test directory's file system keeps evicted pages: the not-cached half is not checked");
  } else {
    CHECK_FALSE(hipfile::sys::range_cached(fd, 0, n));
    CHECK_FALSE(hipfile::sys::range_cached(fd, static_cast<off_t>(5 * kMiB) + 10, 100));
    CHECK(hipfile::sys::range_cached(fd, 0, 4 * kMiB) == resident(f.path(), 0, 4 * kMiB));
    // Asking did not bring the pages back (no read, no readahead).
    CHECK_FALSE(resident(f.path(), static_cast<off_t>(4 * kMiB), n - 4 * kMiB));
  }
  ::close(fd);
  hipfile::sys::ask_mincore_only(false);
}

TEST_CASE("An O_DIRECT client's read of cached data is served from the page cache", "[page_cache][environment]") {
  ClosedDriver guard;
  const std::size_t n = 12 * kMiB;
  TempFile f(n, 71);
  SKIP_WITHOUT_ODIRECT(f);
  const bool device = GENERATE(true, false);
  CAPTURE(device);
  Registered r(f.path(), O_RDONLY | O_DIRECT);
  REQUIRE(resident(f.path(), 0, n));  // just written
  DeviceMem dmem(n);
  std::vector<std::byte> hmem(n);
  void* mem = device ? dmem.get() : static_cast<void*>(hmem.data());
  REQUIRE(hipFileStatsReset().err == hipFileSuccess);
  ScopedSyscalls sc;
  REQUIRE(hipFileRead(r.handle, mem, n - 1000, 1000, 0) == static_cast<ssize_t>(n - 1000));
  const hipFileStatsSource_t m = moved(device ? hipFileStatsPathEngine : hipFileStatsPathHost, hipFileStatsOpRead);
  CHECK(m.cache_bytes == n - 1000);
  CHECK(m.direct_bytes == 0);
  hmem.resize(n - 1000);
  CHECK((device ? to_host(mem, n - 1000) : hmem) == pattern(n - 1000, 71, 1000));
  const FdsUsed used = fds_used(sc.script());
  CHECK(used.buffered);
  CHECK_FALSE(used.direct);
  CHECK(sc.script().fds_used.count(r.fd) == 0);  // never the client's own fd
}

TEST_CASE("Ranges not in the page cache take O_DIRECT only when the client asked for it", "[page_cache][environment]") {
  ClosedDriver guard;
  const std::size_t n = 12 * kMiB;
  TempFile f(n, 65);
  SKIP_WITHOUT_ODIRECT(f);
  const bool client_direct = GENERATE(false, true);
  CAPTURE(client_direct);
  Registered r(f.path(), O_RDWR | (client_direct ? O_DIRECT : 0));
  if (!evict(f.path(), 0, n)) SKIP_WITHOUT_EVICTION();
  DeviceMem mem(n);
  REQUIRE(hipFileStatsReset().err == hipFileSuccess);
  ScopedSyscalls sc;
  REQUIRE(hipFileRead(r.handle, mem.get(), n - 1000, 1000, 0) == static_cast<ssize_t>(n - 1000));
  const hipFileStatsSource_t m = moved(hipFileStatsPathEngine, hipFileStatsOpRead);
  CHECK(m.cache_bytes + m.direct_bytes == n - 1000);
  CHECK((m.direct_bytes != 0) == client_direct);
  CHECK(to_host(mem.get(), n - 1000) == pattern(n - 1000, 65, 1000));
  const FdsUsed used = fds_used(sc.script());
  CHECK(used.direct == client_direct);
  CHECK(used.buffered != client_direct);  // an O_DIRECT client's head and tail are widened to blocks
  CHECK(sc.script().fds_used.count(r.fd) == 0);
}

TEST_CASE("Half cached, half not: each half from where it is, the data whole", "[page_cache][environment]") {
  ClosedDriver guard;
  // Each chunk is read from the cache only when all of it is cached, so a chunk across the
  // boundary goes to the disk. Chunks of 256 KiB and no ramp put a chunk boundary on it however
  // many workers the machine gets (with 12, the automatic layout did not).
  ScopedEnv layout{{"HIPFILE_CHUNK_SIZE", "262144"}};
  ScopedConfig no_ramp([](hipfile::engine::Config& c) { c.first_chunk = 0; });
  const std::size_t n = 16 * kMiB;
  TempFile f(n, 72);
  SKIP_WITHOUT_ODIRECT(f);
  Registered r(f.path(), O_RDONLY | O_DIRECT);
  if (!evict(f.path(), static_cast<off_t>(n / 2), n / 2)) SKIP_WITHOUT_EVICTION();
  REQUIRE(resident(f.path(), 0, n / 2));
  DeviceMem mem(n);
  REQUIRE(hipFileStatsReset().err == hipFileSuccess);
  ScopedSyscalls sc;
  REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  const hipFileStatsSource_t m = moved(hipFileStatsPathEngine, hipFileStatsOpRead);
  CHECK(m.cache_bytes == n / 2);  // exactly the cached half, chunk by chunk
  CHECK(m.direct_bytes == n / 2);
  CHECK(to_host(mem.get(), n) == pattern(n, 72));
  const FdsUsed used = fds_used(sc.script());
  CHECK(used.direct);
  CHECK(used.buffered);
}

TEST_CASE("HIPFILE_DIRECT_READS_FROM_CACHE=false reads an O_DIRECT client's cached data from the disk", "[page_cache][environment]") {
  ClosedDriver guard;
  const std::size_t n = 12 * kMiB;
  TempFile f(n, 73);
  SKIP_WITHOUT_ODIRECT(f);
  ::setenv("HIPFILE_DIRECT_READS_FROM_CACHE", "false", 1);
  {
    Registered r(f.path(), O_RDONLY | O_DIRECT);
    REQUIRE(resident(f.path(), 0, n));
    DeviceMem mem(n);
    ScopedSyscalls sc;
    REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
    CHECK(to_host(mem.get(), n) == pattern(n, 73));
    const FdsUsed used = fds_used(sc.script());
    CHECK(used.direct);
    CHECK_FALSE(used.buffered);
  }
  ClosedDriver::close_all();
  ::unsetenv("HIPFILE_DIRECT_READS_FROM_CACHE");
}

TEST_CASE("A page dirtied through another descriptor just before an O_DIRECT read is read as written", "[page_cache][environment]") {
  ClosedDriver guard;
  const std::size_t n = 12 * kMiB;
  TempFile f(n, 74);
  SKIP_WITHOUT_ODIRECT(f);
  const bool from_cache = GENERATE(true, false);
  CAPTURE(from_cache);
  if (!from_cache) ::setenv("HIPFILE_DIRECT_READS_FROM_CACHE", "false", 1);
  {
    Registered r(f.path(), O_RDONLY | O_DIRECT);
    REQUIRE(evict(f.path(), 0, n));  // clean and cold: only the dirtied pages are cached
    // Another writer changes bytes in the middle of a chunk; they are dirty in the cache only.
    auto want = pattern(n, 74);
    const auto fresh = pattern(10000, 75);
    const int other = ::open(f.c_str(), O_WRONLY | O_CLOEXEC);
    REQUIRE(other >= 0);
    REQUIRE(::pwrite(other, fresh.data(), fresh.size(), 5 * kMiB + 123) == static_cast<ssize_t>(fresh.size()));
    ::close(other);
    std::copy(fresh.begin(), fresh.end(), want.begin() + 5 * kMiB + 123);
    DeviceMem mem(n);
    REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
    CHECK(to_host(mem.get(), n) == want);
  }
  ClosedDriver::close_all();
  ::unsetenv("HIPFILE_DIRECT_READS_FROM_CACHE");
}
