// SPDX-License-Identifier: MIT
// Buffer registration: upstream's checks and errors, plus containing-range lookup and the
// refusal of overlapping registrations.
#include <cstdint>
#include <cstdlib>
#include <thread>
#include <atomic>
#include <vector>

#include "helpers.hpp"

using namespace hipfile::test;

TEST_CASE("BufRegister accepts device memory, exact and interior, with its own length", "[buffer]") {
  ClosedDriver guard;
  DeviceMem mem(1 << 20);
  REQUIRE(hipFileBufRegister(mem.get(), mem.size(), 0).err == hipFileSuccess);
  CHECK(hipFileBufRegister(mem.get(), 4096, 0).err == hipFileMemoryAlreadyRegistered);
  REQUIRE(hipFileBufDeregister(mem.get()).err == hipFileSuccess);
  REQUIRE(hipFileBufRegister(mem.bytes() + 4096, 8192, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.bytes() + 4097).err == hipFileMemoryNotRegistered);  // not a base
  REQUIRE(hipFileBufDeregister(mem.bytes() + 4096).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.bytes() + 4096).err == hipFileMemoryNotRegistered);
}

TEST_CASE("BufRegister refuses ranges beyond the allocation", "[buffer]") {
  ClosedDriver guard;
  DeviceMem mem(4096);
  CHECK(hipFileBufRegister(mem.get(), 8192, 0).err == hipFileHipPointerRangeError);
  CHECK(hipFileBufRegister(mem.bytes() + 1024, 4096, 0).err == hipFileHipPointerRangeError);
  CHECK(hipFileBufRegister(mem.get(), UINT64_MAX, 0).err == hipFileHipPointerRangeError);
  CHECK(hipFileBufRegister(mem.get(), 4096, 0).err == hipFileSuccess);  // exactly fits
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileSuccess);
}

TEST_CASE("BufRegister refuses NULL and overlapping registrations", "[buffer]") {
  ClosedDriver guard;
  CHECK(hipFileBufRegister(nullptr, 4096, 0).err == hipFileInvalidValue);
  DeviceMem mem(64 << 10);
  REQUIRE(hipFileBufRegister(mem.bytes() + 8192, 8192, 0).err == hipFileSuccess);
  CHECK(hipFileBufRegister(mem.bytes(), 8193, 0).err == hipFileMemoryAlreadyRegistered);  // tail overlaps
  CHECK(hipFileBufRegister(mem.bytes() + 16383, 100, 0).err == hipFileMemoryAlreadyRegistered);  // head overlaps
  CHECK(hipFileBufRegister(mem.bytes() + 9000, 10, 0).err == hipFileMemoryAlreadyRegistered);  // inside
  CHECK(hipFileBufRegister(mem.bytes(), 8192, 0).err == hipFileSuccess);  // adjacent is fine
  CHECK(hipFileBufRegister(mem.bytes() + 16384, 8192, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.bytes()).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.bytes() + 8192).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.bytes() + 16384).err == hipFileSuccess);
}

TEST_CASE("BufRegister accepts a zero length", "[buffer]") {
  ClosedDriver guard;
  DeviceMem mem(4096);
  CHECK(hipFileBufRegister(mem.get(), 0, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileSuccess);
}

TEST_CASE("Host, pinned and managed memory register", "[buffer]") {
  ClosedDriver guard;
  void* pinned = nullptr;
  REQUIRE(hipHostMalloc(&pinned, 8192, 0) == hipSuccess);
  CHECK(hipFileBufRegister(pinned, 8192, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(pinned).err == hipFileSuccess);
  // The runtime knows the pinned allocation's size: a longer registration is out of range.
  CHECK(hipFileBufRegister(pinned, 8193, 0).err == hipFileHipPointerRangeError);
  CHECK(hipFileBufRegister(static_cast<char*>(pinned) + 4096, 4097, 0).err == hipFileHipPointerRangeError);
  CHECK(hipFileBufRegister(static_cast<char*>(pinned) + 4096, 4096, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(static_cast<char*>(pinned) + 4096).err == hipFileSuccess);
  (void)hipHostFree(pinned);

  void* managed = nullptr;
  REQUIRE(hipMallocManaged(&managed, 8192, hipMemAttachGlobal) == hipSuccess);
  CHECK(hipFileBufRegister(managed, 8192, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(managed).err == hipFileSuccess);
  CHECK(hipFileBufRegister(managed, 8193, 0).err == hipFileHipPointerRangeError);
  (void)hipFree(managed);

  std::vector<std::byte> pageable(8192);
  CHECK(hipFileBufRegister(pageable.data(), pageable.size(), 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(pageable.data()).err == hipFileSuccess);
}

TEST_CASE("BufDeregister with the driver closed reports DriverClosing", "[buffer]") {
  ClosedDriver guard;
  DeviceMem mem(4096);
  REQUIRE(hipFileBufRegister(mem.get(), 4096, 0).err == hipFileSuccess);
  ClosedDriver::close_all();
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileDriverClosing);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileMemoryNotRegistered);  // the close released it
  CHECK(hipFileBufDeregister(nullptr).err == hipFileInvalidValue);
}

TEST_CASE("Interior pointers of a registration use its bounds", "[buffer]") {
  ClosedDriver guard;
  const std::size_t n = 64 << 10;
  TempFile f(n, 21);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(1 << 20);
  fill_device(mem.get(), 0x5a, mem.size());
  // Registered: the first 32 KiB of a 1 MiB allocation.
  REQUIRE(hipFileBufRegister(mem.get(), 32 << 10, 0).err == hipFileSuccess);
  std::byte* inner = mem.bytes() + 8192;
  CHECK(hipFileRead(r.handle, inner, 24 << 10, 0, 0) == (24 << 10));
  // One byte more would leave the registration, even though the allocation goes on.
  CHECK(hipFileRead(r.handle, inner, (24 << 10) + 1, 0, 0) == -hipFileInvalidValue);
  CHECK(hipFileRead(r.handle, inner, 100, 0, (24 << 10)) == -hipFileInvalidValue);
  auto back = to_host(mem.get(), 64 << 10);
  auto expect = std::vector<std::byte>(64 << 10, std::byte{0x5a});
  auto data = pattern(24 << 10, 21);
  std::copy(data.begin(), data.end(), expect.begin() + 8192);
  CHECK(back == expect);
  REQUIRE(hipFileBufDeregister(mem.get()).err == hipFileSuccess);
}

TEST_CASE("Registering and deregistering while I/O runs on the same memory and file is safe", "[buffer][concurrency]") {
  ClosedDriver guard;
  const std::size_t n = 16u << 20, part = 8u << 20;
  TempFile f(n, 29);
  Registered r(f.path(), O_RDONLY);
  DeviceMem mem(n);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  // Reads into the buffer, whether or not it is registered at that moment.
  std::thread reader([&] {
    for (int i = 0; i < 20; ++i)
      if (hipFileRead(r.handle, mem.bytes() + 4096, part, 4096, 0) != static_cast<ssize_t>(part)) ++bad;
    stop = true;
  });
  // Registers and deregisters the buffer underneath (deregistration waits for a read using it).
  std::thread buffers([&] {
    while (!stop) {
      if (hipFileBufRegister(mem.get(), n, 0).err != hipFileSuccess) ++bad;
      if (hipFileBufDeregister(mem.get()).err != hipFileSuccess) ++bad;
    }
  });
  // Registers and deregisters other handles of the same file.
  std::thread handles([&] {
    while (!stop) {
      int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      hipFileHandle_t h = nullptr;
      if (register_fd(fd, &h).err != hipFileSuccess) ++bad;
      std::vector<std::byte> host(4096);
      if (hipFileRead(h, host.data(), host.size(), 0, 0) != 4096) ++bad;
      hipFileHandleDeregister(h);
      ::close(fd);
    }
  });
  reader.join();
  buffers.join();
  handles.join();
  CHECK(bad == 0);
  CHECK(to_host(mem.bytes() + 4096, part) == pattern(part, 29, 4096));
  CHECK(hipFileBufDeregister(mem.get()).err == hipFileMemoryNotRegistered);
}

// Upstream's own async system tests hipFree a registered buffer without deregistering it and
// hipMalloc the next test's buffer, which GPU runtimes (and hip-cpu) often place at the same
// address. The freed memory's registration must not refuse the new allocation.
TEST_CASE("A registration does not outlive its memory", "[buffer][stale][environment]") {
  ClosedDriver guard;
  constexpr std::size_t kSize = 1 << 20;
  void* p = nullptr;
  REQUIRE(hipMalloc(&p, kSize) == hipSuccess);
  REQUIRE(hipFileBufRegister(p, kSize, 0).err == hipFileSuccess);
  CHECK(hipFileBufRegister(p, kSize, 0).err == hipFileMemoryAlreadyRegistered);  // same allocation
  REQUIRE(hipFree(p) == hipSuccess);

  SECTION("freed, not allocated again: the address registers anew, as host memory") {
    // Before: hipFileMemoryAlreadyRegistered from the freed device registration. Now the runtime
    // no longer knows the address, so it is system memory (allowed by default), one registration.
    CHECK(hipFileBufRegister(p, kSize, 0).err == hipFileSuccess);
    CHECK(hipFileBufDeregister(p).err == hipFileSuccess);
    CHECK(hipFileBufDeregister(p).err == hipFileMemoryNotRegistered);  // the stale entry is gone
  }
  SECTION("allocated again at the same address: registers, and I/O uses the new registration") {
    void* again = allocate_at(p, kSize);
    if (again == nullptr) HIPFILE_SKIP("the runtime did not hand the freed address out again");
    REQUIRE(hipFileBufRegister(again, kSize, 0).err == hipFileSuccess);
    CHECK(hipFileBufRegister(again, kSize, 0).err == hipFileMemoryAlreadyRegistered);
    TempFile f(kSize, 41);
    {
      Registered file(f.path(), O_RDONLY);
      CHECK(hipFileRead(file.handle, again, kSize, 0, 0) == static_cast<ssize_t>(kSize));
    }
    CHECK(to_host(again, kSize) == pattern(kSize, 41));
    CHECK(hipFileBufDeregister(again).err == hipFileSuccess);
    CHECK(hipFileBufDeregister(again).err == hipFileMemoryNotRegistered);
    REQUIRE(hipFree(again) == hipSuccess);
  }
}

TEST_CASE("A stale registration overlapping a new one is dropped, a live one still refuses", "[buffer][stale][environment]") {
  ClosedDriver guard;
  constexpr std::size_t kSize = 64 << 10;
  void* p = nullptr;
  REQUIRE(hipMalloc(&p, kSize) == hipSuccess);
  auto* bytes = static_cast<std::byte*>(p);
  REQUIRE(hipFileBufRegister(bytes + 4096, 8192, 0).err == hipFileSuccess);
  // Overlaps a live registration of the same allocation: refused, and that registration stays.
  CHECK(hipFileBufRegister(p, 8192, 0).err == hipFileMemoryAlreadyRegistered);
  REQUIRE(hipFree(p) == hipSuccess);
  void* again = allocate_at(p, kSize);
  if (again == nullptr) HIPFILE_SKIP("the runtime did not hand the freed address out again");
  // The whole new allocation overlaps the freed one's interior registration, at another base.
  CHECK(hipFileBufRegister(again, kSize, 0).err == hipFileSuccess);
  CHECK(hipFileBufDeregister(bytes + 4096).err == hipFileMemoryNotRegistered);  // dropped
  CHECK(hipFileBufDeregister(again).err == hipFileSuccess);
  REQUIRE(hipFree(again) == hipSuccess);
}
