// SPDX-License-Identifier: MIT
// Pinned host memory that is not registered with hipFile is bounded by its allocation (the
// runtime's range attributes) or by its hipHostRegister range: sync, async and batch I/O that
// would run past the end is refused with hipFileInvalidValue and moves nothing, and when the
// runtime cannot give the range (an injected hipPointerGetAttribute failure) only a hipFile
// registration makes the memory usable. Bytes past the allocation live in hip-cpu's trailing
// guard, which belongs to no allocation, so an overrun would show there.
#include "../c_api/helpers.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>
#include <sys/mman.h>

#include <cstring>
#include <vector>

using namespace hipfile::test;

namespace {

constexpr std::size_t kAlloc = 64u << 10;  // the pinned allocation
constexpr std::size_t kGuard = 64u << 10;  // writable bytes after it that belong to no allocation
constexpr std::byte kGuardByte{0xa5};
constexpr std::byte kUntouched{0x11};

// hipHostMalloc'ed memory of kAlloc bytes followed by kGuard guard bytes, both filled.
struct GuardedPinned {
  std::byte* p = nullptr;
  GuardedPinned() {
    hipcpuSetTrailingGuard(kGuard);
    const hipError_t e = hipHostMalloc(reinterpret_cast<void**>(&p), kAlloc, 0);
    hipcpuSetTrailingGuard(0);
    REQUIRE(e == hipSuccess);
    std::memset(p, static_cast<int>(kUntouched), kAlloc);
    std::memset(p + kAlloc, static_cast<int>(kGuardByte), kGuard);
  }
  ~GuardedPinned() { (void)hipHostFree(p); }
  GuardedPinned(const GuardedPinned&) = delete;
  GuardedPinned& operator=(const GuardedPinned&) = delete;
  bool guard_intact() const { return all(p + kAlloc, kGuard, kGuardByte); }
  bool untouched() const { return all(p, kAlloc, kUntouched); }
  static bool all(const std::byte* at, std::size_t n, std::byte v) {
    for (std::size_t i = 0; i < n; ++i)
      if (at[i] != v) return false;
    return true;
  }
};

bool equals(const std::byte* at, const std::vector<std::byte>& want) {
  return std::memcmp(at, want.data(), want.size()) == 0;
}

// Fails the next `count` hipPointerGetAttribute calls after `skip` successful ones, so that the
// range of host memory cannot be known (the first call asks the start, the second the size).
void fail_range_query(unsigned skip) { hipcpuInjectFault("hipPointerGetAttribute", skip + 1, 1, hipErrorUnknown); }

ssize_t read_async(hipFileHandle_t fh, void* base, std::size_t size, hoff_t foff, hoff_t boff, hipFileError_t& e) {
  ssize_t bytes = -12345;
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  e = hipFileReadAsync(fh, base, &size, &foff, &boff, &bytes, s);
  HIP_CHECK(hipStreamSynchronize(s));
  HIP_CHECK(hipStreamDestroy(s));
  return bytes;
}

ssize_t write_async(hipFileHandle_t fh, void* base, std::size_t size, hoff_t foff, hoff_t boff, hipFileError_t& e) {
  ssize_t bytes = -12345;
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  e = hipFileWriteAsync(fh, base, &size, &foff, &boff, &bytes, s);
  HIP_CHECK(hipStreamSynchronize(s));
  HIP_CHECK(hipStreamDestroy(s));
  return bytes;
}

// Submits one batch operation and waits for its event; the submission's error if it failed.
hipFileOpError_t batch_one(hipFileOpcode_t op, hipFileHandle_t fh, void* base, std::size_t size, hoff_t foff,
                           hoff_t boff, ssize_t& ret) {
  hipFileBatchHandle_t b = nullptr;
  REQUIRE(hipFileBatchIOSetUp(&b, 1).err == hipFileSuccess);
  hipFileIOParams_t io{};
  io.mode = hipFileBatch;
  io.u.batch.devPtr_base = base;
  io.u.batch.file_offset = foff;
  io.u.batch.devPtr_offset = boff;
  io.u.batch.size = size;
  io.fh = fh;
  io.opcode = op;
  const hipFileError_t e = hipFileBatchIOSubmit(b, 1, &io, 0);
  ret = -12345;
  if (e.err == hipFileSuccess) {
    unsigned nr = 1;
    hipFileIOEvents_t ev{};
    REQUIRE(hipFileBatchIOGetStatus(b, 1, &nr, &ev, nullptr).err == hipFileSuccess);
    REQUIRE(nr == 1);
    CHECK(ev.status == hipFileComplete);
    ret = static_cast<ssize_t>(ev.ret);
  } else {
    // Refused at submission: nothing was queued, so nothing completes later.
    unsigned nr = 1;
    hipFileIOEvents_t ev{};
    timespec t{0, 20 * 1000 * 1000};
    REQUIRE(hipFileBatchIOGetStatus(b, 0, &nr, &ev, &t).err == hipFileSuccess);
    CHECK(nr == 0);
  }
  hipFileBatchIODestroy(b);
  return e.err;
}

}  // namespace

TEST_CASE("A read or write past an unregistered pinned allocation is refused and moves nothing", "[pinned][bounds]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 81);
  Registered r(f.path(), O_RDWR);
  GuardedPinned mem;
  // 128 KiB into 64 KiB, and ranges that cross the end through an offset or an interior pointer.
  CHECK(hipFileRead(r.handle, mem.p, 2 * kAlloc, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.p, kAlloc / 2 + 1, 0, kAlloc / 2) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.p + 1000, kAlloc - 999, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, mem.p, 1, 0, kAlloc) == -hipFileInvalidValue);
  CHECK(mem.untouched());
  CHECK(mem.guard_intact());
  CHECK(hipFileWrite(r.handle, mem.p, 2 * kAlloc, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileWrite(r.handle, mem.p + 1000, kAlloc - 999, 4096, 0) == -hipFileInvalidValue);
  CHECK(read_file(f.path()) == pattern(2 * kAlloc, 81));
  CHECK(mem.guard_intact());
}

TEST_CASE("Unregistered pinned memory within its allocation is read and written byte for byte", "[pinned][bounds]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 82);
  Registered r(f.path(), O_RDWR);
  GuardedPinned mem;
  // Exact fit.
  REQUIRE(hipFileRead(r.handle, mem.p, kAlloc, kAlloc, 0) == static_cast<ssize_t>(kAlloc));
  CHECK(equals(mem.p, pattern(kAlloc, 82, kAlloc)));
  CHECK(mem.guard_intact());
  // In range through a buffer offset and through an interior pointer, up to the last byte.
  std::memset(mem.p, static_cast<int>(kUntouched), kAlloc);
  REQUIRE(hipFileRead(r.handle, mem.p, kAlloc / 2, 4096, kAlloc / 2) == static_cast<ssize_t>(kAlloc / 2));
  CHECK(equals(mem.p + kAlloc / 2, pattern(kAlloc / 2, 82, 4096)));
  CHECK(GuardedPinned::all(mem.p, kAlloc / 2, kUntouched));
  REQUIRE(hipFileRead(r.handle, mem.p + 1000, kAlloc - 1000, 0, 0) == static_cast<ssize_t>(kAlloc - 1000));
  CHECK(equals(mem.p + 1000, pattern(kAlloc - 1000, 82)));
  CHECK(mem.guard_intact());
  // The write form: the last 3000 bytes of the allocation go to offset 5000 of the file.
  const auto src = pattern(kAlloc, 83);
  std::memcpy(mem.p, src.data(), kAlloc);
  REQUIRE(hipFileWrite(r.handle, mem.p, 3000, 5000, kAlloc - 3000) == 3000);
  auto want = pattern(2 * kAlloc, 82);
  std::memcpy(want.data() + 5000, src.data() + kAlloc - 3000, 3000);
  CHECK(read_file(f.path()) == want);
  CHECK(mem.guard_intact());
}

TEST_CASE("Pinned memory the runtime cannot bound is refused unless a registration bounds it", "[pinned][bounds][hip]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 84);
  Registered r(f.path(), O_RDWR);
  GuardedPinned mem;
  // Either range attribute failing leaves the allocation unbounded: every size is refused, even
  // one that would fit, since none can be checked.
  for (unsigned skip : {0u, 1u}) {
    for (std::size_t size : {2 * kAlloc, kAlloc, std::size_t{1}}) {
      CAPTURE(skip, size);
      fail_range_query(skip);
      CHECK(hipFileRead(r.handle, mem.p, size, 0, 0) == -hipFileInvalidValue);
      hipcpuClearFaults();
      fail_range_query(skip);
      CHECK(hipFileWrite(r.handle, mem.p, size, 0, 0) == -hipFileInvalidValue);
      hipcpuClearFaults();
    }
  }
  CHECK(mem.untouched());
  CHECK(mem.guard_intact());
  CHECK(read_file(f.path()) == pattern(2 * kAlloc, 84));
  // A registration is the bound instead: within it I/O runs, past it I/O is refused.
  REQUIRE(hipFileBufRegister(mem.p, kAlloc, 0).err == hipFileSuccess);
  fail_range_query(0);
  CHECK(hipFileRead(r.handle, mem.p, kAlloc, 0, 0) == static_cast<ssize_t>(kAlloc));
  hipcpuClearFaults();
  CHECK(equals(mem.p, pattern(kAlloc, 84)));
  fail_range_query(0);
  CHECK(hipFileRead(r.handle, mem.p, 2 * kAlloc, 0, 0) == -hipFileInvalidValue);
  hipcpuClearFaults();
  CHECK(mem.guard_intact());
  REQUIRE(hipFileBufDeregister(mem.p).err == hipFileSuccess);
  // Pageable memory has no allocation the runtime knows: it is never range-queried.
  std::vector<std::byte> pageable(kAlloc);
  hipcpuResetCallCounts();
  CHECK(hipFileRead(r.handle, pageable.data(), kAlloc, 0, 0) == static_cast<ssize_t>(kAlloc));
  CHECK(hipcpuCallCount("hipPointerGetAttribute") == 0);
  CHECK(pageable == pattern(kAlloc, 84));
}

TEST_CASE("hipHostRegister'ed memory is bounded by its registration", "[pinned][bounds]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 85);
  Registered r(f.path(), O_RDWR);
  // Three allocation-sized parts of our own: the first is registered with HIP, the rest is guard.
  auto* region = static_cast<std::byte*>(
      mmap(nullptr, 3 * kAlloc, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(region != MAP_FAILED);
  std::memset(region, static_cast<int>(kGuardByte), 3 * kAlloc);
  HIP_CHECK(hipHostRegister(region, kAlloc, 0));
  CHECK(hipFileRead(r.handle, region, 2 * kAlloc, 0, 0) == -hipFileInvalidValue);
  CHECK(GuardedPinned::all(region, 3 * kAlloc, kGuardByte));
  CHECK(hipFileWrite(r.handle, region + 4096, kAlloc, 0, 0) == -hipFileInvalidValue);
  CHECK(read_file(f.path()) == pattern(2 * kAlloc, 85));
  REQUIRE(hipFileRead(r.handle, region, kAlloc, 0, 0) == static_cast<ssize_t>(kAlloc));
  CHECK(equals(region, pattern(kAlloc, 85)));
  CHECK(GuardedPinned::all(region + kAlloc, 2 * kAlloc, kGuardByte));
  HIP_CHECK(hipHostUnregister(region));
  munmap(region, 3 * kAlloc);
}

TEST_CASE("Async I/O past an unregistered pinned allocation is refused at submission", "[pinned][bounds][async]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 86);
  Registered r(f.path(), O_RDWR);
  GuardedPinned mem;
  hipFileError_t e{};
  // Refused: the error comes back from the call, and *bytes is never written (nothing runs).
  CHECK(read_async(r.handle, mem.p, 2 * kAlloc, 0, 0, e) == -12345);
  CHECK(e.err == hipFileInvalidValue);
  CHECK(read_async(r.handle, mem.p, 4096, 0, kAlloc - 4095, e) == -12345);
  CHECK(e.err == hipFileInvalidValue);
  CHECK(write_async(r.handle, mem.p, 2 * kAlloc, 0, 0, e) == -12345);
  CHECK(e.err == hipFileInvalidValue);
  fail_range_query(0);
  CHECK(read_async(r.handle, mem.p, kAlloc, 0, 0, e) == -12345);
  hipcpuClearFaults();
  CHECK(e.err == hipFileInvalidValue);
  CHECK(mem.untouched());
  CHECK(mem.guard_intact());
  CHECK(read_file(f.path()) == pattern(2 * kAlloc, 86));
  // Exact fit, and in range through an offset.
  CHECK(read_async(r.handle, mem.p, kAlloc, kAlloc, 0, e) == static_cast<ssize_t>(kAlloc));
  CHECK(e.err == hipFileSuccess);
  CHECK(equals(mem.p, pattern(kAlloc, 86, kAlloc)));
  CHECK(write_async(r.handle, mem.p, 4096, 0, kAlloc - 4096, e) == 4096);
  CHECK(e.err == hipFileSuccess);
  auto want = pattern(2 * kAlloc, 86);
  std::memcpy(want.data(), pattern(4096, 86, 2 * kAlloc - 4096).data(), 4096);
  CHECK(read_file(f.path()) == want);
  CHECK(mem.guard_intact());
}

TEST_CASE("Batch I/O past an unregistered pinned allocation is refused at submission", "[pinned][bounds][batch]") {
  ClosedDriver guard;
  TempFile f(2 * kAlloc, 87);
  Registered r(f.path(), O_RDWR);
  GuardedPinned mem;
  ssize_t ret = 0;
  CHECK(batch_one(hipFileBatchRead, r.handle, mem.p, 2 * kAlloc, 0, 0, ret) == hipFileInvalidValue);
  CHECK(batch_one(hipFileBatchRead, r.handle, mem.p, 2, 0, kAlloc - 1, ret) == hipFileInvalidValue);
  CHECK(batch_one(hipFileBatchWrite, r.handle, mem.p, 2 * kAlloc, 0, 0, ret) == hipFileInvalidValue);
  fail_range_query(0);
  CHECK(batch_one(hipFileBatchWrite, r.handle, mem.p, 4096, 0, 0, ret) == hipFileInvalidValue);
  hipcpuClearFaults();
  CHECK(mem.untouched());
  CHECK(mem.guard_intact());
  CHECK(read_file(f.path()) == pattern(2 * kAlloc, 87));
  CHECK(batch_one(hipFileBatchRead, r.handle, mem.p, kAlloc, 4096, 0, ret) == hipFileSuccess);
  CHECK(ret == static_cast<ssize_t>(kAlloc));
  CHECK(equals(mem.p, pattern(kAlloc, 87, 4096)));
  CHECK(batch_one(hipFileBatchWrite, r.handle, mem.p, 100, 2 * kAlloc - 100, kAlloc - 100, ret) == hipFileSuccess);
  CHECK(ret == 100);
  auto want = pattern(2 * kAlloc, 87);
  std::memcpy(want.data() + 2 * kAlloc - 100, pattern(100, 87, 4096 + kAlloc - 100).data(), 100);
  CHECK(read_file(f.path()) == want);
  CHECK(mem.guard_intact());
}
#endif
