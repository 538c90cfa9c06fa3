// SPDX-License-Identifier: MIT
// Profiler ranges: one per request while hipFileParamProfileNvtx / HIPFILE_PROFILE_NVTX is on,
// none while it is off (the default), counted through the engine's own counter, so the wiring is
// checked on every platform whatever the backend (NVTX, roctx or none).
#include <cstdlib>

#include "../c_api/helpers.hpp"
#include "runtime/profile.hpp"

using namespace hipfile::test;
namespace profile = hipfile::engine::profile;

namespace {

constexpr hipFileOpError_t ok = hipFileSuccess;

// Three requests: a device write, a device read, a host read.
void three_requests() {
  const size_t n = 64 * 1024;
  TempFile file(n);
  Registered r(file.path(), O_RDWR);
  DeviceMem dev(n);
  REQUIRE(hipFileWrite(r.handle, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));
  REQUIRE(hipFileRead(r.handle, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));
  std::vector<std::byte> host(4096);
  REQUIRE(hipFileRead(r.handle, host.data(), host.size(), 0, 0) == 4096);
}

}  // namespace

TEST_CASE("Ranges are off by default", "[profile]") {
  ClosedDriver guard;
  REQUIRE(hipFileDriverOpen().err == ok);
  bool on = true;
  REQUIRE(hipFileGetParameterBool(hipFileParamProfileNvtx, &on).err == ok);
  CHECK_FALSE(on);
  const auto before = profile::ranges_begun();
  three_requests();
  CHECK(profile::ranges_begun() == before);
}

TEST_CASE("hipFileParamProfileNvtx gives one range per request", "[profile]") {
  ClosedDriver guard;
  REQUIRE(hipFileSetParameterBool(hipFileParamProfileNvtx, true).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  const auto before = profile::ranges_begun();
  three_requests();
  CHECK(profile::ranges_begun() == before + 3);
  REQUIRE(hipFileDriverClose().err == ok);  // the parameter resets at the last close
  REQUIRE(hipFileDriverOpen().err == ok);
  const auto after = profile::ranges_begun();
  three_requests();
  CHECK(profile::ranges_begun() == after);
}

TEST_CASE("HIPFILE_PROFILE_NVTX=true turns them on at the next open", "[profile]") {
  ClosedDriver guard;
  ::setenv("HIPFILE_PROFILE_NVTX", "true", 1);
  REQUIRE(hipFileDriverOpen().err == ok);
  ::unsetenv("HIPFILE_PROFILE_NVTX");
  const auto before = profile::ranges_begun();
  three_requests();
  CHECK(profile::ranges_begun() == before + 3);
  REQUIRE(hipFileDriverClose().err == ok);
  CHECK(std::string(profile::backend()) == HIPFILE_EXPECTED_PROFILE_BACKEND);
}
