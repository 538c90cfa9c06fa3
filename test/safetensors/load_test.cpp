// SPDX-License-Identifier: MIT
// Loading into device memory: every dtype, empty and 1-element tensors, odd sizes, subsets,
// typed access, release(), progress, and the failures after open (a changed
// shard, a device that does not exist, an allocation that fails) leaving nothing allocated.
#include "common.hpp"
#include "workers.hpp"  // the loader's private run_on_threads() (safetensors/workers.hpp)

#include <hipfile++/driver.hpp>
#include <hipfile++/stats.hpp>

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#if __has_include(<hip/hip_cpu.h>)
#include <hip/hip_cpu.h>
#endif

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

// One tensor of every dtype (sizes chosen so the packed offsets are odd), plus an empty and a
// scalar tensor and one large enough for the engine's worker pool.
std::vector<Spec> every_dtype() {
  std::vector<Spec> specs;
  for (std::size_t i = 0; i < sts::kDtypeCount; ++i) {
    const Dtype d = sts::dtype_at(i);
    const std::uint64_t n = sts::dtype_bits(d) % 8 ? 8 : 3 + i;  // F4/F6: 8 elements are whole bytes
    specs.push_back({"t." + std::string(sts::dtype_name(d)), d, {n}});
  }
  specs.push_back({"empty", Dtype::F32, {0, 7}});
  specs.push_back({"scalar", Dtype::F64, {}});
  specs.push_back({"one", Dtype::I8, {1}});
  specs.push_back({"big", Dtype::U8, {(5u << 20) + 3}});
  return specs;
}

// Engine and host read requests so far (the requests load() made, when taken around it).
std::uint64_t read_requests() {
  auto s = hipfile::stats::level1();
  REQUIRE(s);
  using hipfile::stats::Op;
  using hipfile::stats::Path;
  return hipfile::stats::at(*s, Path::engine, Op::read).ops + hipfile::stats::at(*s, Path::host, Op::read).ops;
}

int device_count() {
  int n = 0;
  return hipGetDeviceCount(&n) == hipSuccess ? n : 0;
}

}  // namespace

TEST_CASE("every dtype, empty, scalar and odd-sized tensors load byte for byte in one read") {
  TempDir dir;
  const std::string path = dir / "all.safetensors";
  const auto specs = every_dtype();
  const Made made = make_checkpoint(path, specs, 7, "{\"format\":\"pt\"}");
  auto driver = hipfile::Driver::open();
  REQUIRE(driver);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  REQUIRE(c->tensors().size() == specs.size());

  const std::uint64_t before = read_requests();
  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  CHECK(read_requests() - before == 1);  // the whole data section, one hipFileRead
  REQUIRE(loaded->allocations().size() == 1);
  CHECK(loaded->stats().path_bytes[static_cast<int>(hipfile::stats::Path::engine)] == c->bytes());
  CHECK(loaded->allocations()[0].bytes == c->bytes());
  CHECK(loaded->bytes() == c->bytes());
  for (const auto& s : specs) {
    INFO(s.name);
    const sts::LoadedTensor* t = loaded->find(s.name);
    REQUIRE(t != nullptr);
    CHECK(t->dtype == s.dtype);
    CHECK(t->shape == s.shape);
    CHECK(t->bytes == spec_bytes(s));
    CHECK(t->device == 0);
    CHECK(host_bytes(*t) == made.at(s.name));
    if (t->bytes == 0) {
      CHECK(t->data == nullptr);
    } else {
      // The device address keeps the data-section offset modulo 256.
      const auto base = reinterpret_cast<std::uintptr_t>(loaded->allocations()[0].data);
      CHECK((reinterpret_cast<std::uintptr_t>(t->data) - base) % 256 == c->find(s.name)->begin % 256);
    }
  }
  CHECK(loaded->find("scalar")->elements() == 1);
  CHECK(loaded->find("empty")->elements() == 0);
}

TEST_CASE("typed access matches the dtype and refuses another") {
  TempDir dir;
  const std::string path = dir / "typed.safetensors";
  // Aligned layout: the F32 tensor first, at offset 0; BF16 after 16 bytes; U8 last.
  const Made made = make_checkpoint(path, {{"w", Dtype::F32, {4}}, {"h", Dtype::BF16, {3}}, {"b", Dtype::U8, {5}}});
  auto loaded = sts::load(path);
  REQUIRE(loaded);
  auto w = loaded->span<float>("w");
  REQUIRE(w);
  CHECK(w->size() == 4);
  CHECK(static_cast<const void*>(w->data()) == loaded->find("w")->data);
  auto h = loaded->span<sts::bf16>("h");
  REQUIRE(h);
  CHECK(h->size() == 3);
  CHECK(to_host(h->data(), 6) == made.at("h"));
  auto b = loaded->span<std::uint8_t>("b");
  REQUIRE(b);
  CHECK(b->size() == 5);
  auto bytes = loaded->bytes("b");
  REQUIRE(bytes);
  CHECK(bytes->size() == 5);

  auto wrong = loaded->span<std::uint16_t>("h");
  REQUIRE_FALSE(wrong);
  CHECK(wrong.error().code() == Errc::dtype_mismatch);
  CHECK(wrong.error().message() == "tensor 'h': is BF16, not U16");
  auto missing = loaded->span<float>("nope");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == Errc::no_such_tensor);
  CHECK(missing.error().message() == "tensor 'nope': is not loaded");
}

TEST_CASE("typed access refuses a misaligned tensor") {
  TempDir dir;
  const std::string path = dir / "odd.safetensors";
  make_checkpoint(path, {{"b", Dtype::U8, {3}}, {"w", Dtype::F32, {2}}});  // w at offset 3
  auto loaded = sts::load(path);
  REQUIRE(loaded);
  auto w = loaded->span<float>("w");
  REQUIRE_FALSE(w);
  CHECK(w.error().code() == Errc::invalid_argument);
  CHECK(w.error().message() == "tensor 'w': is not aligned to 4 bytes in device memory");
  CHECK(loaded->bytes("w"));
}

TEST_CASE("a subset by names, by predicate, or both") {
  TempDir dir;
  const std::string path = dir / "subset.safetensors";
  // Two small tensors 3 MiB apart: a subset of those two is two reads into one allocation.
  const Made made = make_checkpoint(path, {{"layers.0.a", Dtype::F32, {5}},
                                           {"layers.0.gap", Dtype::U8, {3u << 20}},
                                           {"layers.1.a", Dtype::F32, {7}},
                                           {"head", Dtype::BF16, {9}}});
  auto driver = hipfile::Driver::open();
  REQUIRE(driver);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);

  sts::LoadOptions by_name;
  by_name.names = {"head", "layers.0.a"};
  auto a = sts::load(*c, by_name);
  REQUIRE(a);
  REQUIRE(a->tensors().size() == 2);
  CHECK(a->tensors()[0].name == "layers.0.a");  // checkpoint order, not the order asked
  CHECK(host_bytes(*a->find("head")) == made.at("head"));
  CHECK(host_bytes(*a->find("layers.0.a")) == made.at("layers.0.a"));
  CHECK(a->find("layers.1.a") == nullptr);
  CHECK(a->allocations().size() == 1);
  CHECK(a->allocations()[0].bytes < (1u << 20));  // the 3 MiB between them is not loaded

  sts::LoadOptions pred;
  pred.filter = [](const sts::TensorInfo& t) { return t.name.ends_with(".a"); };
  const std::uint64_t before = read_requests();
  auto b = sts::load(*c, pred);
  REQUIRE(b);
  CHECK(read_requests() - before == 2);
  REQUIRE(b->tensors().size() == 2);
  CHECK(host_bytes(*b->find("layers.1.a")) == made.at("layers.1.a"));

  sts::LoadOptions both = by_name;
  both.filter = pred.filter;
  auto ab = sts::load(*c, both);
  REQUIRE(ab);
  REQUIRE(ab->tensors().size() == 1);
  CHECK(ab->tensors()[0].name == "layers.0.a");

  sts::LoadOptions none;
  none.filter = [](const sts::TensorInfo&) { return false; };
  auto empty = sts::load(*c, none);
  REQUIRE(empty);
  CHECK(empty->tensors().empty());
  CHECK(empty->allocations().empty());

  const int live = live_device_allocations();
  sts::LoadOptions bad;
  bad.names = {"head", "tail"};
  auto missing = sts::load(*c, bad);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == Errc::no_such_tensor);
  CHECK(missing.error().message() == path + ": tensor 'tail': is not in the checkpoint");
  CHECK(live_device_allocations() == live);
}

TEST_CASE("a device that does not exist is refused before anything is allocated") {
  TempDir dir;
  const std::string path = dir / "d.safetensors";
  make_checkpoint(path, {{"w", Dtype::F32, {4}}});
  sts::LoadOptions o;
  const int live = live_device_allocations();
  // -1 is the current device; another negative index was once taken as it too.
  for (int device : {9, -2, -7, INT_MIN}) {
    INFO(device);
    o.device = device;
    auto loaded = sts::load(path, o);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().code() == Errc::invalid_argument);
    CHECK(loaded.error().message() == path + ": tensor 'w': device " + std::to_string(device) + " does not exist (" +
                                          std::to_string(device_count()) + " found)");
    CHECK(live_device_allocations() == live);
  }
}

TEST_CASE("a shard that changed size after open is refused") {
  TempDir dir;
  const std::string path = dir / "c.safetensors";
  make_checkpoint(path, {{"w", Dtype::F32, {4}}, {"v", Dtype::F32, {2}}});
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const std::uint64_t size = c->shards()[0].size;
  const int live = live_device_allocations();
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size - 4)) == 0);
  auto shrunk = sts::load(*c);
  REQUIRE_FALSE(shrunk);
  CHECK(shrunk.error().code() == Errc::shard_changed);
  CHECK(shrunk.error().message() == path + ": tensor 'w': the file is now " + std::to_string(size - 4) +
                                        " bytes; it was " + std::to_string(size) + " when the checkpoint was opened");
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size + 1)) == 0);
  auto grown = sts::load(*c);
  REQUIRE_FALSE(grown);
  CHECK(grown.error().code() == Errc::shard_changed);
  CHECK(live_device_allocations() == live);
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size)) == 0);
  CHECK(sts::load(*c));
}

#if __has_include(<hip/hip_cpu.h>)
TEST_CASE("an allocation that fails frees the ones made before it") {
  TempDir dir;
  make_checkpoint(dir / "a.safetensors", {{"a", Dtype::F32, {4}}});
  make_checkpoint(dir / "b.safetensors", {{"b", Dtype::F32, {4}}});
  const std::vector<std::string> paths = {dir / "a.safetensors", dir / "b.safetensors"};
  auto c = sts::Checkpoint::open(paths);
  REQUIRE(c);
  const int live = live_device_allocations();
  hipcpuInjectFault("hipMalloc", 2, 1, hipErrorOutOfMemory);
  auto loaded = sts::load(*c);
  hipcpuClearFaults();
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().code() == Errc::device_error);
  CHECK(loaded.error().cause().hip() == hipErrorOutOfMemory);
  CHECK(loaded.error().message() == paths[1] + ": on device 0: allocate of 16 bytes: HIP runtime error: hipErrorOutOfMemory");
  CHECK(live_device_allocations() == live);
}

TEST_CASE("a failing read frees everything and names the file and tensor") {
  TempDir dir;
  const std::string path = dir / "r.safetensors";
  make_checkpoint(path, {{"w", Dtype::F32, {4}}});
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const int live = live_device_allocations();
  hipcpuInjectFault("hipMemcpyAsync", 1, 1000, hipErrorInvalidValue);
  hipcpuInjectFault("hipMemcpy", 1, 1000, hipErrorInvalidValue);
  auto loaded = sts::load(*c);
  hipcpuClearFaults();
  REQUIRE_FALSE(loaded);
  CHECK(loaded.error().code() == Errc::io_error);
  CHECK(loaded.error().tensor() == "w");
  CHECK(loaded.error().message().rfind(path + ": tensor 'w': reading 16 bytes at offset " +
                                           std::to_string(c->tensors()[0].file_offset) + " into device 0: ",
                                       0) == 0);
  CHECK(live_device_allocations() == live);
}
#endif

TEST_CASE("release() hands the allocations over and keeps the views") {
  TempDir dir;
  const std::string path = dir / "rel.safetensors";
  const Made made = make_checkpoint(path, {{"w", Dtype::F32, {40}}, {"e", Dtype::U8, {0}}});
  const int live = live_device_allocations();
  auto loaded = sts::load(path);
  REQUIRE(loaded);
  std::vector<sts::Allocation> taken = loaded->release();
  REQUIRE(taken.size() == 1);
  CHECK(loaded->allocations().empty());
  REQUIRE(loaded->find("w") != nullptr);
  CHECK(loaded->find("w")->data == taken[0].data);
  *loaded = sts::LoadedCheckpoint();  // destroying the result frees nothing now
  CHECK(to_host(taken[0].data, 160) == made.at("w"));
  for (const auto& a : taken) CHECK(hipFree(a.data) == hipSuccess);
  CHECK(live_device_allocations() == live);
}

TEST_CASE("progress reports every piece and the data is unchanged") {
  TempDir dir;
  const std::string path = dir / "p.safetensors";
  const Made made = make_checkpoint(path, {{"w", Dtype::U8, {10000}}, {"v", Dtype::U8, {4097}}});
  sts::LoadOptions o;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  o.progress = [&](std::uint64_t done, std::uint64_t total) { calls.emplace_back(done, total); };
  o.progress_step = 4096;
  auto loaded = sts::load(path, o);
  REQUIRE(loaded);
  REQUIRE(calls.size() == 4);  // 14097 bytes in 4096-byte pieces
  CHECK(calls.back() == std::pair<std::uint64_t, std::uint64_t>(14097, 14097));
  CHECK(calls[0].first == 4096);
  CHECK(host_bytes(*loaded->find("w")) == made.at("w"));
  CHECK(host_bytes(*loaded->find("v")) == made.at("v"));
}

TEST_CASE("direct reads give the same bytes") {
  TempDir dir;
  const std::string path = dir / "direct.safetensors";
  const Made made = make_checkpoint(path, {{"a", Dtype::U8, {4099}}, {"b", Dtype::F32, {(1u << 18) + 3}}});
  sts::LoadOptions o;
  o.direct = true;
  auto loaded = sts::load(path, o);
  REQUIRE(loaded);
  CHECK(host_bytes(*loaded->find("a")) == made.at("a"));
  CHECK(host_bytes(*loaded->find("b")) == made.at("b"));
}

TEST_CASE("parallel_reads cuts each range into that many reads, same bytes") {
  TempDir dir;
  const std::string path = dir / "par.safetensors";
  const Made made = make_checkpoint(path, {{"a", Dtype::U8, {(5u << 20) + 7}}, {"b", Dtype::F32, {3}}});
  auto driver = hipfile::Driver::open();
  REQUIRE(driver);
  sts::LoadOptions o;
  o.parallel_reads = 3;
  const std::uint64_t before = read_requests();
  auto loaded = sts::load(path, o);
  REQUIRE(loaded);
  CHECK(loaded->stats().reads == 3);  // 2 MiB, 2 MiB and the rest
  CHECK(read_requests() - before == 3);
  CHECK(loaded->allocations().size() == 1);
  CHECK(host_bytes(*loaded->find("a")) == made.at("a"));
  CHECK(host_bytes(*loaded->find("b")) == made.at("b"));
}

TEST_CASE("parallel_reads above its maximum is refused before anything is allocated") {
  TempDir dir;
  const std::string path = dir / "max.safetensors";
  const Made made = make_checkpoint(path, {{"a", Dtype::U8, {(2u << 20) + 5}}, {"b", Dtype::F32, {3}}});
  const int live = live_device_allocations();
  for (unsigned n : {sts::kMaxParallelReads + 1, 4'000'000'000u}) {
    INFO(n);
    sts::LoadOptions o;
    o.parallel_reads = n;
    auto loaded = sts::load(path, o);
    REQUIRE_FALSE(loaded);
    CHECK(loaded.error().code() == Errc::invalid_argument);
    CHECK(loaded.error().message() == "parallel_reads " + std::to_string(n) + " is above the maximum of 64");
    CHECK(live_device_allocations() == live);
  }
  sts::LoadOptions o;
  o.parallel_reads = sts::kMaxParallelReads;
  auto loaded = sts::load(path, o);
  REQUIRE(loaded);
  CHECK(loaded->stats().reads == 3);  // pieces of whole MiB: 1, 1 and the rest
  CHECK(host_bytes(*loaded->find("a")) == made.at("a"));
  CHECK(host_bytes(*loaded->find("b")) == made.at("b"));
}

TEST_CASE("a read smaller than parallel_reads pieces stays one read") {
  TempDir dir;
  const std::string path = dir / "small.safetensors";
  const Made made = make_checkpoint(path, {{"a", Dtype::U8, {3}}});
  sts::LoadOptions o;
  o.parallel_reads = 4;
  auto loaded = sts::load(path, o);
  REQUIRE(loaded);
  CHECK(loaded->stats().reads == 1);
  CHECK(host_bytes(*loaded->find("a")) == made.at("a"));
}

namespace {
std::atomic<int> starts_allowed{0};
std::atomic<int> start_calls{0};
// pthread_create until starts_allowed runs out, then EAGAIN (a system refusing threads).
int limited_start(pthread_t* t, void* (*body)(void*), void* arg) {
  ++start_calls;
  if (starts_allowed.fetch_sub(1) <= 0) return EAGAIN;
  return ::pthread_create(t, nullptr, body, arg);
}
}  // namespace

TEST_CASE("threads that cannot be started leave the work to the ones that were") {
  for (int allowed : {0, 2, 1000}) {
    INFO(allowed);
    starts_allowed = allowed;
    start_calls = 0;
    std::vector<std::atomic<int>> done(500);
    std::atomic<std::size_t> next{0};
    auto work = [&] {
      for (std::size_t j; (j = next.fetch_add(1)) < done.size();) ++done[j];
    };
    const std::size_t ran = sts::detail::run_on_threads(1000, work, limited_start);
    // At most kMaxThreads, the caller's included; no start is tried after a refusal.
    CHECK(ran == std::min<std::size_t>(allowed + 1, sts::detail::kMaxThreads));
    CHECK(start_calls == std::min<int>(allowed + 1, sts::detail::kMaxThreads - 1));
    CHECK(std::all_of(done.begin(), done.end(), [](const std::atomic<int>& d) { return d == 1; }));
  }
}

TEST_CASE("placement over two devices: one allocation and one read per shard and device", "[environment]") {
  int devices = 0;
  REQUIRE(hipGetDeviceCount(&devices) == hipSuccess);
  if (devices < 2)
    HIPFILE_SKIP("needs two devices, the HIP runtime reports " + std::to_string(devices) +
                 " (hip-cpu: HIPCPU_DEVICE_COUNT=2)");
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

TEST_CASE("a load's breakdown adds up to its wall time, and a first load opens the driver inside register") {
  TempDir dir;
  const std::string path = dir / "timed.safetensors";
  const std::vector<Spec> specs{{"a", Dtype::F32, {(8u << 20) + 5}}, {"b", Dtype::U8, {3}}, {"c", Dtype::BF16, {1u << 20, 3}}};
  const Made made = make_checkpoint(path, specs, 11);
  while (hipFileUseCount() > 0) (void)hipFileDriverClose();  // this load opens the driver itself
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  for (int pass = 0; pass < 2; ++pass) {
    CAPTURE(pass);
    const auto began = std::chrono::steady_clock::now();
    auto loaded = sts::load(*c);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    REQUIRE(loaded);
    const sts::LoadStats& s = loaded->stats();
    const double parts[] = {s.plan_seconds, s.allocate_seconds, s.register_seconds, s.read_seconds, s.finish_seconds};
    double sum = 0;
    for (double p : parts) {
      CHECK(p >= 0);
      sum += p;
    }
    CHECK(s.total_seconds > 0);
    CHECK(std::abs(sum - s.total_seconds) <= 1e-6 * s.total_seconds + 1e-9);
    CHECK(s.total_seconds <= wall);
    CHECK(s.total_seconds >= 0.95 * wall);
    using hipfile::stats::Phase;
    const auto& opened = s.library_phases[static_cast<std::size_t>(Phase::driver_open)];
    CHECK(opened.count == (pass == 0 ? 1u : 0u));
    CHECK(static_cast<double>(opened.time_ns) / 1e9 <= s.register_seconds);
    CHECK(s.library_phases[static_cast<std::size_t>(Phase::file_registration)].count == 1);
    CHECK(s.library_phases[static_cast<std::size_t>(Phase::engine_start)].count == (pass == 0 ? 1u : 0u));
    for (const auto& spec : specs) CHECK(host_bytes(*loaded->find(spec.name)) == made.at(spec.name));
  }
}
