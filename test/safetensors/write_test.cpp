// SPDX-License-Identifier: MIT
// The writer: files that read back identically (from host and device memory), laid out as
// the safetensors package lays them out, and arguments refused before the file is touched.
#include "common.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <vector>

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

// Host tensors of every dtype, with pattern data, shapes of odd sizes.
struct HostTensors {
  std::vector<std::vector<std::byte>> data;
  std::vector<sts::TensorData> tensors;
  HostTensors() {
    data.reserve(sts::kDtypeCount + 2);
    for (std::size_t i = 0; i < sts::kDtypeCount; ++i) {
      const Dtype d = sts::dtype_at(i);
      const std::vector<std::uint64_t> shape = sts::dtype_bits(d) % 8 ? std::vector<std::uint64_t>{2, 4}
                                                                       : std::vector<std::uint64_t>{i + 1, 3};
      add("w." + std::string(sts::dtype_name(d)), d, shape, i);
    }
    add("empty", Dtype::BF16, {3, 0}, 90);
    add("scalar", Dtype::I32, {}, 91);
  }
  void add(const std::string& name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t seed) {
    std::uint64_t bits = sts::dtype_bits(d);
    for (auto x : shape) bits *= x;
    data.push_back(pattern(bits / 8, seed + 10));
    tensors.push_back({name, d, std::move(shape), data.back()});
  }
};

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

}  // namespace

TEST_CASE("host tensors of every dtype write and read back identically") {
  TempDir dir;
  const std::string path = dir / "out.safetensors";
  HostTensors h;
  sts::WriteOptions o;
  o.metadata = {{"format", "pt"}, {"note", "h\xc3\xa9"}};
  REQUIRE(sts::write(path, h.tensors, o));
  CHECK(files_in(dir.path()) == std::vector<std::string>{"out.safetensors"});

  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  CHECK(c->metadata() == o.metadata);
  CHECK(c->tensors().size() == h.tensors.size());
  CHECK(c->shards()[0].data_start % 8 == 0);
  // Larger elements first, so every offset is a multiple of its element size.
  unsigned last_bits = 64;
  for (const auto& t : c->tensors()) {
    INFO(t.name);
    CHECK(sts::dtype_bits(t.dtype) <= last_bits);
    last_bits = sts::dtype_bits(t.dtype);
    if (last_bits >= 8) CHECK(t.begin % (last_bits / 8) == 0);
  }
  const auto file = read_file(path);
  CHECK(static_cast<char>(file[8]) == '{');
  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  for (std::size_t i = 0; i < h.tensors.size(); ++i) {
    INFO(h.tensors[i].name);
    const auto* t = loaded->find(h.tensors[i].name);
    REQUIRE(t != nullptr);
    CHECK(t->dtype == h.tensors[i].dtype);
    CHECK(t->shape == h.tensors[i].shape);
    CHECK(host_bytes(*t) == h.data[i]);
  }
}

TEST_CASE("a loaded checkpoint written back from device memory is the same checkpoint") {
  TempDir dir;
  const Made made = make_checkpoint(dir / "in.safetensors", {{"a", Dtype::U8, {3}}, {"b", Dtype::F32, {1000}},
                                                             {"c", Dtype::BF16, {(1u << 20) + 1}}});
  auto loaded = sts::load(dir / "in.safetensors");
  REQUIRE(loaded);
  sts::WriteOptions o;
  o.threads = 2;
  REQUIRE(sts::write(dir / "out.safetensors", sts::tensors_of(*loaded), o));
  auto again = sts::load(dir / "out.safetensors");
  REQUIRE(again);
  for (const char* name : {"a", "b", "c"}) CHECK(host_bytes(*again->find(name)) == made.at(name));
  // Reordered for alignment: F32 and BF16 before U8.
  auto c = sts::Checkpoint::open(dir / "out.safetensors");
  REQUIRE(c);
  CHECK(c->tensors()[0].name == "b");
  CHECK(c->tensors()[1].name == "c");
  CHECK(c->tensors()[2].name == "a");
}

TEST_CASE("an empty checkpoint writes and opens") {
  TempDir dir;
  REQUIRE(sts::write(dir / "none.safetensors", {}));
  auto c = sts::Checkpoint::open(dir / "none.safetensors");
  REQUIRE(c);
  CHECK(c->tensors().empty());
  CHECK(read_file(dir / "none.safetensors").size() == 16);  // length + "{}" padded to 8
}

TEST_CASE("bad tensors are refused and the old file is kept") {
  TempDir dir;
  const std::string path = dir / "keep.safetensors";
  write_file(path, pattern(100, 4));
  std::vector<std::byte> four(4), eight(8);
  auto expect = [&](std::vector<sts::TensorData> t, Errc code, const std::string& message) {
    auto r = sts::write(path, t);
    REQUIRE_FALSE(r);
    CHECK(sts::errc_name(r.error().code()) == sts::errc_name(code));
    CHECK(r.error().message() == path + ": " + message);
    CHECK(read_file(path) == pattern(100, 4));
    CHECK(files_in(dir.path()) == std::vector<std::string>{"keep.safetensors"});
  };
  expect({{"a", Dtype::F32, {1}, four}, {"a", Dtype::F32, {1}, four}}, Errc::duplicate_name, "tensor 'a': is given twice");
  expect({{"", Dtype::F32, {1}, four}}, Errc::invalid_argument, "a tensor has an empty name");
  expect({{"__metadata__", Dtype::F32, {1}, four}}, Errc::invalid_argument,
         "tensor '__metadata__': is the reserved key of the metadata");
  expect({{"bad\xff", Dtype::F32, {1}, four}}, Errc::invalid_argument, "a tensor name is not valid UTF-8");
  expect({{"a", Dtype::F32, {3}, eight}}, Errc::size_mismatch, "tensor 'a': shape [3] of F32 is 12 bytes, but the data is 8 bytes");
  expect({{"a", Dtype::F4, {3}, four}}, Errc::size_mismatch, "tensor 'a': shape [3] of F4 is 12 bits, but the data is 4 bytes");
  expect({{"a", Dtype::U64, {1ull << 32, 1ull << 32}, four}}, Errc::invalid_shape, "tensor 'a': shape overflows 64 bits of data");
  sts::WriteOptions o;
  o.metadata = {{"k", "\xc0"}};
  auto r = sts::write(path, {}, o);
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::invalid_metadata);
}

TEST_CASE("a file that cannot be created is an io_error") {
  TempDir dir;
  const std::string path = dir / "missing-folder/out.safetensors";
  std::vector<std::byte> four(4);
  auto r = sts::write(path, {{{"a", Dtype::F32, {1}, four}}});
  REQUIRE_FALSE(r);
  CHECK(r.error().code() == Errc::io_error);
  CHECK(r.error().cause().sys_errno() == ENOENT);
  CHECK(r.error().message() == path + ": cannot create its temporary file: open '" + path + ".tmp." +
                                   std::to_string(::getpid()) + "': No such file or directory (ENOENT)");
}
