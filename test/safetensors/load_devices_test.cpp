// SPDX-License-Identifier: MIT
// Loading onto two devices. A program of its own, so that where fewer than two devices exist
// it exits 77 (Meson: SKIP) before any test runs, instead of passing without testing.
#if defined(HIPFILE_CATCH2_V3)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER  // this file's main, not the suites' one (catch_main.cpp)
#endif
#include "common.hpp"

#include <hipfile++/driver.hpp>
#include <hipfile++/stats.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

// Engine and host read requests so far (the requests load() made, when taken around it).
std::uint64_t read_requests() {
  auto s = hipfile::stats::level1();
  REQUIRE(s);
  using hipfile::stats::Op;
  using hipfile::stats::Path;
  return hipfile::stats::at(*s, Path::engine, Op::read).ops + hipfile::stats::at(*s, Path::host, Op::read).ops;
}

}  // namespace

TEST_CASE("placement over two devices: one allocation and one read per shard and device") {
  TempDir dir;
  const Made first = make_checkpoint(dir / "a.safetensors", {{"l0", Dtype::F32, {100}}, {"l1", Dtype::F32, {101}},
                                                             {"l2", Dtype::F16, {33}}, {"l3", Dtype::I64, {0}}});
  const Made second = make_checkpoint(dir / "b.safetensors", {{"l4", Dtype::BF16, {77}}, {"l5", Dtype::U8, {1}}}, 5);
  auto driver = hipfile::Driver::open();
  REQUIRE(driver);
  const std::vector<std::string> paths = {dir / "a.safetensors", dir / "b.safetensors"};
  auto c = sts::Checkpoint::open(paths);
  REQUIRE(c);
  sts::LoadOptions o;
  o.placement = [](const sts::TensorInfo& t) { return (t.name.back() - '0') % 2; };  // l0 → 0, l1 → 1, ...
  const std::uint64_t before = read_requests();
  auto loaded = sts::load(*c, o);
  REQUIRE(loaded);
  // a: l0, l2 on 0 (l1 between them is read as a gap), l1 on 1; b: l4 on 0, l5 on 1.
  CHECK(read_requests() - before == 4);
  CHECK(loaded->allocations().size() == 4);
  for (const auto& t : loaded->tensors()) {
    INFO(t.name);
    CHECK(t.device == (t.name.back() - '0') % 2);
    if (t.bytes) {
      hipPointerAttribute_t attr{};
      REQUIRE(hipPointerGetAttributes(&attr, t.data) == hipSuccess);
      CHECK(attr.device == t.device);
    }
    CHECK(host_bytes(t) == (t.name < "l4" ? first : second).at(t.name));
  }
  for (const auto& a : loaded->allocations()) CHECK(a.device == (&a - loaded->allocations().data()) % 2);

  o.placement = [](const sts::TensorInfo& t) { return t.name == "l5" ? 2 : 0; };
  const int live = live_device_allocations();
  auto bad = sts::load(*c, o);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == Errc::invalid_argument);
  CHECK(bad.error().message() == paths[1] + ": tensor 'l5': device 2 does not exist (2 found)");
  CHECK(live_device_allocations() == live);
}

int main(int argc, char** argv) {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices < 2) {
    std::printf("SKIP: needs two devices, the HIP runtime reports %d (hip-cpu: HIPCPU_DEVICE_COUNT=2)\n", devices);
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
