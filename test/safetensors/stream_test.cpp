// SPDX-License-Identifier: MIT
// TensorStream: every selected tensor once, in file order, byte for byte; the read-ahead kept
// within the budget; a budget below the largest tensor refused; a stream dropped half-way
// frees what it read; a read that fails comes out at its tensor, after the ones before it.
#include "common.hpp"

#include <unistd.h>

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

std::vector<Spec> layers() {
  std::vector<Spec> specs;
  for (int i = 0; i < 12; ++i)
    specs.push_back({"layer." + std::to_string(i), i % 3 ? Dtype::BF16 : Dtype::F32, {std::uint64_t(17 + 5 * i), 33}});
  specs.push_back({"empty", Dtype::F32, {0}});
  specs.push_back({"large", Dtype::U8, {(1u << 20) + 7}});
  return specs;
}

std::vector<std::byte> bytes_of(const sts::StreamedTensor& t) {
  std::vector<std::byte> out(t.tensor.bytes);
  if (!out.empty())
    REQUIRE(hipMemcpy(out.data(), t.tensor.data, out.size(), hipMemcpyDeviceToHost) == hipSuccess);
  return out;
}

}  // namespace

TEST_CASE("every tensor once, in file order, byte for byte, within the budget") {
  TempDir dir;
  const std::string path = dir / "m.safetensors";
  const auto specs = layers();
  const Made made = make_checkpoint(path, specs, 2);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  for (std::uint64_t budget : {std::uint64_t{0}, std::uint64_t{(1u << 20) + 7}, std::uint64_t{64} << 20}) {
    for (unsigned threads : {1u, 2u, 5u}) {
      INFO("budget " << budget << " threads " << threads);
      sts::StreamOptions o;
      o.budget = budget;
      o.read_ahead_threads = threads;
      auto s = sts::TensorStream::open(*c, o);
      REQUIRE(s);
      CHECK(s->size() == specs.size());
      CHECK(s->budget() == (budget ? budget : sts::kDefaultStreamBudget));
      std::size_t k = 0;
      for (;;) {
        auto t = s->next();
        REQUIRE(t);
        if (!*t) break;
        REQUIRE(k < c->tensors().size());
        const auto& info = c->tensors()[k++];  // checkpoint order is file order
        CHECK((*t)->tensor.name == info.name);
        CHECK((*t)->tensor.shape == info.shape);
        CHECK((*t)->tensor.dtype == info.dtype);
        CHECK(bytes_of(**t) == made.at(info.name));
      }
      CHECK(k == specs.size());
      CHECK(s->peak_held() <= s->budget());
      CHECK(s->stats().bytes_read == c->bytes());
      auto after = s->next();  // past the end stays at the end
      REQUIRE(after);
      CHECK_FALSE(*after);
    }
  }
}

TEST_CASE("a budget below the largest tensor is refused, naming it; names and filter select") {
  TempDir dir;
  const std::string path = dir / "b.safetensors";
  make_checkpoint(path, layers(), 3);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  sts::StreamOptions o;
  o.budget = 1u << 20;
  auto s = sts::TensorStream::open(*c, o);
  REQUIRE_FALSE(s);
  CHECK(s.error().code() == Errc::invalid_argument);
  CHECK(s.error().message() == path + ": tensor 'large': the tensor is " + std::to_string((1u << 20) + 7) +
                                   " bytes, more than the stream's budget of 1048576 bytes");
  o.read_ahead_threads = 0;
  CHECK_FALSE(sts::TensorStream::open(*c, o));

  sts::StreamOptions pick;
  pick.names = {"layer.3", "layer.1"};
  pick.filter = [](const sts::TensorInfo& t) { return t.name != "layer.3"; };
  auto only = sts::TensorStream::open(*c, pick);
  REQUIRE(only);
  CHECK(only->size() == 1);
  std::vector<std::string> names;
  auto stats = sts::stream(*c, pick, [&](sts::StreamedTensor&& t) {
    names.push_back(t.tensor.name);
    return true;
  });
  REQUIRE(stats);
  CHECK(names == std::vector<std::string>{"layer.1"});
  pick.names = {"nope"};
  auto missing = sts::TensorStream::open(*c, pick);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code() == Errc::no_such_tensor);
}

TEST_CASE("a stream dropped half-way, or stopped by its callback, frees what it read") {
  TempDir dir;
  const std::string path = dir / "d.safetensors";
  make_checkpoint(path, layers(), 4);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const int live = live_device_allocations();
  {
    auto s = sts::TensorStream::open(*c);
    REQUIRE(s);
    auto first = s->next();
    REQUIRE(first);
    REQUIRE(*first);
  }
  CHECK(live_device_allocations() == live);
  int taken = 0;
  auto stats = sts::stream(*c, {}, [&](sts::StreamedTensor&&) { return ++taken < 3; });
  REQUIRE(stats);
  CHECK(taken == 3);
  CHECK(live_device_allocations() == live);
}

TEST_CASE("a read that fails comes out at its tensor, after every tensor before it") {
  TempDir dir;
  const std::string path = dir / "f.safetensors";
  const auto specs = layers();
  make_checkpoint(path, specs, 5);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const auto& last = c->tensors().back();
  sts::StreamOptions o;
  o.budget = last.bytes();  // one at a time: the file is cut before the last tensor is read
  auto s = sts::TensorStream::open(*c, o);
  REQUIRE(s);
  auto first = s->next();
  REQUIRE(first);
  REQUIRE(*first);
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(last.file_offset + 1)) == 0);
  std::size_t delivered = 1;
  for (;;) {
    auto t = s->next();
    if (!t) {
      CHECK(t.error().code() == Errc::shard_changed);
      CHECK(t.error().tensor() == last.name);
      break;
    }
    REQUIRE(*t);
    ++delivered;
  }
  CHECK(delivered == c->tensors().size() - 1);
  auto again = s->next();  // the failure stays
  REQUIRE_FALSE(again);
  CHECK(again.error().code() == Errc::shard_changed);
}

TEST_CASE("a stream onto another device puts every tensor there and leaves the current device") {
  int count = 0;
  REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
  if (count < 2) HIPFILE_SKIP("needs two devices");
  TempDir dir;
  const std::string path = dir / "two.safetensors";
  const Made made = make_checkpoint(path, layers(), 6);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  REQUIRE(hipSetDevice(0) == hipSuccess);
  sts::StreamOptions o;
  o.device = 1;
  std::size_t n = 0;
  auto stats = sts::stream(*c, o, [&](sts::StreamedTensor&& t) {
    CHECK(t.tensor.device == 1);
    if (t.tensor.bytes > 0) {
      hipPointerAttribute_t a{};
      REQUIRE(hipPointerGetAttributes(&a, t.tensor.data) == hipSuccess);
      CHECK(a.device == 1);
    }
    CHECK(bytes_of(t) == made.at(t.tensor.name));
    return ++n > 0;
  });
  REQUIRE(stats);
  CHECK(n == c->tensors().size());
  int current = -1;
  REQUIRE(hipGetDevice(&current) == hipSuccess);
  CHECK(current == 0);
  o.device = 2;
  auto missing = sts::TensorStream::open(*c, o);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() == "device 2 does not exist (2 found)");
  o.device = -7;  // only -1 is the current device
  auto negative = sts::TensorStream::open(*c, o);
  REQUIRE_FALSE(negative);
  CHECK(negative.error().code() == Errc::invalid_argument);
  CHECK(negative.error().message() == "device -7 does not exist (2 found)");
}
