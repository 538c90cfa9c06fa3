// SPDX-License-Identifier: MIT
// Buffers on different devices: copies run on the buffer's own device, the caller's current
// device is left as it was, and registration records the device. Runs with two hip-cpu devices
// in CI (HIPCPU_DEVICE_COUNT=2) and on real multi-GPU machines; skips on one device.
#include <thread>

#include "helpers.hpp"

using namespace hipfile::test;

namespace {
int device_count() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
}
int current_device() {
  int d = -1;
  (void)hipGetDevice(&d);
  return d;
}
}  // namespace

TEST_CASE("Reads and writes use the buffer's device and keep the caller's", "[multidevice]") {
  if (device_count() < 2) HIPFILE_SKIP("fewer than two devices");
  ClosedDriver guard;
  const std::size_t n = (8u << 20) + 333;
  TempFile f(2 * n, 51);
  Registered r(f.path(), O_RDWR);
  REQUIRE(hipSetDevice(0) == hipSuccess);
  DeviceMem on1(n, 1);
  DeviceMem on0(n, 0);
  REQUIRE(hipFileBufRegister(on1.get(), n, 0).err == hipFileSuccess);
  const bool small = GENERATE(false, true);  // inline path and worker path
  const std::size_t len = small ? 4096 : n;
  REQUIRE(hipFileRead(r.handle, on1.get(), len, 0, 0) == static_cast<ssize_t>(len));
  CHECK(current_device() == 0);
  REQUIRE(hipFileRead(r.handle, on0.get(), len, n, 0) == static_cast<ssize_t>(len));
  CHECK(to_host(on1.get(), len) == pattern(len, 51, 0));
  CHECK(to_host(on0.get(), len) == pattern(len, 51, n));
  REQUIRE(hipSetDevice(1) == hipSuccess);
  to_device(on0.get(), pattern(len, 52));
  REQUIRE(hipFileWrite(r.handle, on0.get(), len, 0, 0) == static_cast<ssize_t>(len));
  CHECK(current_device() == 1);
  REQUIRE(hipSetDevice(0) == hipSuccess);
  auto file = read_file(f.path());
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + len) == pattern(len, 52));
  REQUIRE(hipFileBufDeregister(on1.get()).err == hipFileSuccess);
}

TEST_CASE("Two threads read the two halves of a file onto two devices at once", "[multidevice]") {
  if (device_count() < 2) HIPFILE_SKIP("fewer than two devices");
  ClosedDriver guard;
  const std::size_t half = (16u << 20) + 4096 + 9;
  TempFile f(2 * half, 53);
  Registered r(f.path(), O_RDWR);
  std::vector<int> ok(2, 0);
  std::vector<std::thread> threads;
  for (int d = 0; d < 2; ++d) {
    threads.emplace_back([&, d] {
      (void)hipSetDevice(d);
      DeviceMem mem(half, d);
      const off_t off = static_cast<off_t>(half) * d;
      if (hipFileRead(r.handle, mem.get(), half, off, 0) != static_cast<ssize_t>(half)) return;
      if (to_host(mem.get(), half) != pattern(half, 53, off)) return;
      to_device(mem.get(), pattern(half, 54, off));
      if (hipFileWrite(r.handle, mem.get(), half, off, 0) != static_cast<ssize_t>(half)) return;
      ok[d] = current_device() == d;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == std::vector<int>{1, 1});
  CHECK(read_file(f.path()) == pattern(2 * half, 54));
}
