// SPDX-License-Identifier: MIT
// The one-line helpers of io.hpp: whole files and ranges into new DeviceBuffers, device spans
// into files.
#include "catch.hpp"

#include <hipfile++/io.hpp>

#include <cerrno>
#include <vector>

#include "test_support.hpp"

using hipfile::Error;
namespace t = hipfile::test;

TEST_CASE("read_to_device reads a whole file into a new DeviceBuffer", "[io]") {
  const std::size_t n = 3 * 1024 * 1024 + 77;
  t::TempFile tmp(n, 41);
  auto buf = hipfile::read_to_device(tmp.path());
  REQUIRE(buf.has_value());
  CHECK(buf->size() == n);
  int dev = -1;
  REQUIRE(hipGetDevice(&dev) == hipSuccess);
  CHECK(buf->device() == dev);
  CHECK(t::to_host(buf->data(), n) == t::pattern(n, 41));
}

TEST_CASE("read_to_device reads a range", "[io]") {
  t::TempFile tmp(100000, 42);
  auto buf = hipfile::read_to_device(tmp.c_str(), 4097, 50000);
  REQUIRE(buf.has_value());
  CHECK(buf->size() == 50000);
  CHECK(t::to_host(buf->data(), 50000) == t::pattern(50000, 42, 4097));

  SECTION("a range past the end of the file is end of file, naming the path and range") {
    auto past = hipfile::read_to_device(tmp.path(), 90000, 20000);
    REQUIRE_FALSE(past.has_value());
    CHECK(past.error().is_eof());
    CHECK(past.error().message() == "read of 20000 bytes at offset 90000 from '" + tmp.path() + "': end of file");
  }
  SECTION("an offset beyond INT64_MAX is invalid") {
    auto huge = hipfile::read_to_device(tmp.path(), ~std::uint64_t{0}, 16);
    REQUIRE_FALSE(huge.has_value());
    CHECK(huge.error() == Error::from_errno(EINVAL));  // as File::read: hipFileRead's -1, errno EINVAL
    CHECK(huge.error().explanation() == "the file offset -1 is negative");
  }
}

TEST_CASE("read_to_device from an open File reuses it", "[io]") {
  t::TempFile tmp(8192, 43);
  auto f = hipfile::File::open(tmp.path(), O_RDONLY);
  REQUIRE(f.has_value());
  auto all = hipfile::read_to_device(*f);
  REQUIRE(all.has_value());
  CHECK(t::to_host(all->data(), 8192) == t::pattern(8192, 43));
  auto part = hipfile::read_to_device(*f, 100, 200);
  REQUIRE(part.has_value());
  CHECK(t::to_host(part->data(), 200) == t::pattern(200, 43, 100));
}

TEST_CASE("read_to_device of an empty file gives an empty buffer", "[io]") {
  t::TempFile tmp(0);
  auto buf = hipfile::read_to_device(tmp.path());
  REQUIRE(buf.has_value());
  CHECK(buf->size() == 0);
  CHECK(buf->bytes().empty());
}

TEST_CASE("read_to_device failures return the Error", "[io]") {
  auto missing = hipfile::read_to_device(t::test_dir() + "/hipfile-no-such-file");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error() == Error::from_errno(ENOENT));

  t::TempFile tmp(16);
  int count = 0;
  REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
  auto bad_dev = hipfile::read_to_device(tmp.path(), count + 2);
  REQUIRE_FALSE(bad_dev.has_value());
  CHECK(bad_dev.error() == Error::from_hip(hipErrorInvalidDevice));
}

TEST_CASE("write_from_device creates a file with the device bytes", "[io]") {
  const auto bytes = t::pattern(123457, 44);
  t::DeviceMem dev(bytes.size());
  t::to_device(dev.get(), bytes);
  t::TempFile tmp(50);  // an existing, longer-lived name: truncated by the helper
  REQUIRE(hipfile::write_from_device(tmp.path(), std::span<const std::byte>(dev.bytes(), bytes.size())).has_value());
  CHECK(t::read_file(tmp.path()) == bytes);

  // And back again in one line.
  auto back = hipfile::read_to_device(tmp.path());
  REQUIRE(back.has_value());
  CHECK(t::to_host(back->data(), back->size()) == bytes);

  SECTION("into an open File at an offset") {
    auto f = hipfile::File::open(tmp.path(), O_WRONLY);
    REQUIRE(f.has_value());
    REQUIRE(hipfile::write_from_device(*f, std::span<const std::byte>(dev.bytes(), 1000), 200000).has_value());
    auto s = f->size();
    REQUIRE(s.has_value());
    CHECK(*s == 201000);
  }
  SECTION("into a directory that does not exist") {
    auto r = hipfile::write_from_device(t::test_dir() + "/hipfile-no-such-dir/out",
                                        std::span<const std::byte>(dev.bytes(), 16));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == Error::from_errno(ENOENT));
  }
}

TEST_CASE("read_to_device puts the buffer on the requested device", "[io][environment]") {
  int count = 0;
  REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
  if (count < 2) HIPFILE_SKIP("one device: reading to a second device needs two");
  t::TempFile tmp(65536, 45);
  REQUIRE(hipSetDevice(0) == hipSuccess);
  auto buf = hipfile::read_to_device(tmp.path(), 1);
  REQUIRE(buf.has_value());
  CHECK(buf->device() == 1);
  hipPointerAttribute_t attr{};
  REQUIRE(hipPointerGetAttributes(&attr, buf->data()) == hipSuccess);
  CHECK(attr.device == 1);
  int cur = -1;
  REQUIRE(hipGetDevice(&cur) == hipSuccess);
  CHECK(cur == 0);
  CHECK(t::to_host(buf->data(), 65536) == t::pattern(65536, 45));
}
