// SPDX-License-Identifier: MIT
// hipfile::File errors say what failed (operation, path, offset, length) as text; typed-span
// I/O of float, uint16_t and structs; read_value; sync; a driver closed underneath a File.
#include "catch.hpp"

#include <hipfile++/batch.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "test_support.hpp"

using hipfile::Error;
using hipfile::File;
using hipfile::Operation;
namespace t = hipfile::test;

namespace {

File open_ok(const std::string& path, int flags) {
  auto f = File::open(path, flags);
  if (!f) FAIL("File::open(" << path << "): " << f.error().message());
  return std::move(*f);
}

struct Record {  // a struct read straight from the file (trivially copyable, 16 bytes)
  std::uint32_t id;
  std::uint16_t kind;
  std::uint16_t flags;
  double value;
};
static_assert(sizeof(Record) == 16);

}  // namespace

TEST_CASE("open of a missing file names the path and the errno", "[file]") {
  const std::string path = t::test_dir() + "/hipfile-no-such-file.bin";
  auto f = File::open(path, O_RDONLY);
  REQUIRE(!f);
  CHECK(f.error().message() == "open '" + path + "': No such file or directory (ENOENT)");
  CHECK(f.error().is_system());
  CHECK(f.error().op() == hipFileSuccess);  // not hipFileInternalError
  CHECK(f.error().operation() == Operation::open);
  CHECK(f.error().path() == path);
}

TEST_CASE("a write to a read-only File says write, length, offset, path and EBADF", "[file]") {
  t::TempFile tmp(8192, 2);
  File f = open_ok(tmp.path(), O_RDONLY);
  CHECK(f.path() == tmp.path());
  std::vector<std::byte> host(4096);
  auto w = f.write(std::span<const std::byte>(host), 4096);
  REQUIRE(!w);
  CHECK(w.error().message() == "write of 4096 bytes at offset 4096 to '" + tmp.path() + "': Bad file descriptor (EBADF)");
  auto pw = f.write_async(std::span<const std::byte>(host), 4096).get();
  REQUIRE(!pw);
  CHECK(pw.error().message() == w.error().message());
  hipfile::Batch batch;
  batch.add_write(f, std::span<const std::byte>(host), 4096);
  auto results = batch.wait();
  REQUIRE(!results[0]);
  CHECK(results[0].error().message() == w.error().message());
  CHECK(t::read_file(tmp.path()) == t::pattern(8192, 2));
}

TEST_CASE("a read past the end says end of file for the whole request", "[file]") {
  t::TempFile tmp(1048576 + 100, 3);
  File f = open_ok(tmp.path(), O_RDONLY);
  std::vector<std::byte> host(4096);
  auto r = f.read_exact(std::span(host), 1048576);
  REQUIRE(!r);
  CHECK(r.error().is_eof());
  CHECK(!r.error().is_system());
  CHECK(r.error().message() == "read of 4096 bytes at offset 1048576 from '" + tmp.path() + "': end of file");
  // The bytes before the end were read.
  CHECK(std::vector<std::byte>(host.begin(), host.begin() + 100) == t::pattern(100, 3, 1048576));
}

TEST_CASE("bad ranges are refused before the C call, with the range in the message", "[file]") {
  t::TempFile tmp(4096, 4);
  File f = open_ok(tmp.path(), O_RDWR);
  std::vector<std::byte> host(16);
  auto neg = f.read(std::span(host), -1);
  REQUIRE(!neg);
  CHECK(neg.error().message() == "read of 16 bytes at offset -1 from '" + tmp.path() +
                                      "': Invalid argument (EINVAL): the file offset -1 is negative");
  auto over = f.write(std::span<const std::byte>(host), INT64_MAX - 8);
  REQUIRE(!over);
  CHECK(over.error() == Error::from_errno(EINVAL));
  CHECK(*over.error().offset() == INT64_MAX - 8);
  CHECK(f.read_exact(std::span(host), -5).error() == Error::from_errno(EINVAL));
  CHECK(f.read_value<std::uint64_t>(-8).error() == Error::from_errno(EINVAL));
  CHECK(t::read_file(tmp.path()) == t::pattern(4096, 4));
}

TEST_CASE("an adopted File without a path leaves the path out of messages", "[file]") {
  t::TempFile tmp(64, 1);
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto f = File::adopt(fd);
  REQUIRE(f);
  CHECK(f->path().empty());
  std::vector<std::byte> host(8);
  CHECK(f->write(std::span<const std::byte>(host), 0).error().message() ==
        "write of 8 bytes at offset 0: Bad file descriptor (EBADF)");
  const int fd2 = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  auto named = File::adopt(fd2, "given-name.bin");
  REQUIRE(named);
  CHECK(named->path() == "given-name.bin");
}

TEST_CASE("a read after the driver was closed underneath a live File says handle not registered", "[file]") {
  t::TempFile tmp(4096, 5);
  File f = open_ok(tmp.path(), O_RDONLY);
  std::vector<std::byte> host(4096);
  REQUIRE(f.read(std::span(host), 0) == hipfile::Result<std::size_t>(4096));
  while (hipFileUseCount() > 0) REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  const std::string text = hipFileGetOpErrorString(hipFileHandleNotRegistered);
  auto r = f.read(std::span(host), 0);
  REQUIRE(!r);
  CHECK(r.error().op() == hipFileHandleNotRegistered);
  CHECK(r.error().message() == "read of 4096 bytes at offset 0 from '" + tmp.path() + "': " + text);
  auto p = f.read_async(std::span(host), 0).get();
  REQUIRE(!p);
  CHECK(p.error().op() == hipFileHandleNotRegistered);
  CHECK(p.error().message() == r.error().message());
  auto w = f.write_all(std::span<const std::byte>(host), 0);
  REQUIRE(!w);
  CHECK(w.error().op() == hipFileHandleNotRegistered);
}

TEST_CASE("typed spans read and write float, uint16_t and structs byte for byte", "[file]") {
  t::TempFile tmp;
  File f = open_ok(tmp.path(), O_RDWR | O_TRUNC);
  std::vector<float> floats(1000);
  for (std::size_t i = 0; i < floats.size(); ++i) floats[i] = static_cast<float>(i) * 0.5f;
  std::vector<std::uint16_t> halves(777);
  for (std::size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<std::uint16_t>(i * 31);
  std::array<Record, 3> records{{{1, 2, 3, 4.5}, {6, 7, 8, 9.25}, {10, 11, 12, -1.0}}};
  constexpr hipfile::Offset kHalves = 4000, kRecords = 4000 + 1554;
  auto dev = hipfile::DeviceBuffer::allocate(4000);
  REQUIRE(dev);
  t::to_device(dev->data(), std::as_bytes(std::span(floats)));
  REQUIRE(f.write(dev->as<float>(), 0) == hipfile::Result<std::size_t>(4000));  // device floats
  REQUIRE(f.write_all(std::span(halves), kHalves));                              // host uint16_t
  REQUIRE(f.write_all(std::span(records), kRecords));                            // host structs

  auto back = hipfile::DeviceBuffer::allocate(4000);
  REQUIRE(back);
  REQUIRE(f.read(back->as<float>(), 0) == hipfile::Result<std::size_t>(4000));
  std::vector<float> floats_back(1000);
  std::memcpy(floats_back.data(), t::to_host(back->data(), 4000).data(), 4000);
  CHECK(floats_back == floats);
  std::vector<std::uint16_t> halves_back(777);
  REQUIRE(f.read_exact(std::span(halves_back), kHalves));
  CHECK(halves_back == halves);
  std::array<Record, 3> records_back{};
  REQUIRE(f.read_exact(std::span(records_back), kRecords));
  CHECK(std::memcmp(records_back.data(), records.data(), sizeof records) == 0);
  auto one = f.read_value<Record>(kRecords + 16);
  REQUIRE(one);
  CHECK(one->id == 6);
  CHECK(one->value == 9.25);
  REQUIRE(f.write_value(std::uint64_t{0x0102030405060708}, 0));
  CHECK(f.read_value<std::uint64_t>(0) == hipfile::Result<std::uint64_t>(0x0102030405060708));
  auto past = f.read_value<Record>(kRecords + 40);
  REQUIRE(!past);
  CHECK(past.error().is_eof());
  CHECK(past.error().message() == "read of 16 bytes at offset " + std::to_string(kRecords + 40) + " from '" +
                                      tmp.path() + "': end of file");
  REQUIRE(f.sync());
}

TEST_CASE("File::sync of an empty File is EBADF", "[file]") {
  File none;
  auto s = none.sync();
  REQUIRE(!s);
  CHECK(s.error().sys_errno() == EBADF);
  CHECK(s.error().operation() == Operation::sync);
}
