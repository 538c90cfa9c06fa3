// SPDX-License-Identifier: MIT
// One program mixing hipfile++ and raw C calls on the same file and buffers: the raw handles
// work with C, C registrations work with C++ I/O, and errors convert both ways.
#include "catch.hpp"

#include <hipfile++/hipfile.hpp>

#include <cerrno>
#include <vector>

#include "test_support.hpp"

using hipfile::Error;
namespace t = hipfile::test;

namespace {

// A C-style function (the kind a C++ program keeps from its C past) that reports through the
// ssize_t convention, implemented with hipfile++.
ssize_t legacy_read(const hipfile::File& f, void* dev, std::size_t n, hoff_t off) {
  auto r = f.read(std::span<std::byte>(static_cast<std::byte*>(dev), n), off);
  return r ? static_cast<ssize_t>(*r) : r.error().to_io_return();
}

}  // namespace

TEST_CASE("C++ owners and raw C calls share one file, one buffer and one error path", "[mixed]") {
  const std::size_t n = 256 * 1024;
  t::TempFile tmp(n, 51);
  auto file = hipfile::File::open(tmp.path(), O_RDWR);
  REQUIRE(file.has_value());
  auto rb = hipfile::make_registered_buffer(n);
  REQUIRE(rb.has_value());

  // C reads through the C++ File's handle into the C++-registered buffer.
  const ssize_t got = hipFileRead(file->handle(), rb->buffer.data(), n, 0, 0);
  REQUIRE(got == static_cast<ssize_t>(n));
  CHECK(t::to_host(rb->buffer.data(), n) == t::pattern(n, 51));

  // The C++ layer reads a subspan through the same registration, C checks it byte for byte.
  auto part = rb->bytes().subspan(1000, 5000);
  auto r = file->read(rb->registration, part, 70000);
  REQUIRE(r.has_value());
  std::vector<std::byte> host(5000);
  REQUIRE(hipMemcpy(host.data(), part.data(), 5000, hipMemcpyDeviceToHost) == hipSuccess);
  CHECK(host == t::pattern(5000, 51, 70000));

  // A buffer registered by C is used by C++ through an adopted Registration, which then
  // deregisters it.
  t::DeviceMem raw(8192);
  REQUIRE(hipfile::check(hipFileBufRegister(raw.get(), raw.size(), 0)).has_value());
  {
    auto reg = hipfile::Registration::adopt(raw.get(), raw.size());
    auto w = file->write(reg, std::span<const std::byte>(rb->bytes().first(8192)), 0);
    REQUIRE_FALSE(w.has_value());  // rb's memory is not inside `reg`
    CHECK(w.error() == Error::from_op(hipFileInvalidValue));
    auto rr = file->read(reg, std::span<std::byte>(raw.bytes(), 8192), 8192);
    REQUIRE(rr.has_value());
    CHECK(t::to_host(raw.get(), 8192) == t::pattern(8192, 51, 8192));
  }
  CHECK(hipFileBufDeregister(raw.get()).err == hipFileMemoryNotRegistered);

  // C writes through the handle; C++ reads what C wrote.
  t::to_device(raw.get(), t::pattern(8192, 99));
  REQUIRE(hipFileWrite(file->handle(), raw.get(), 8192, 4096, 0) == 8192);
  auto check = hipfile::DeviceBuffer::allocate(8192);
  REQUIRE(check.has_value());
  REQUIRE(file->read_exact(check->bytes(), 4096).has_value());
  CHECK(t::to_host(check->data(), 8192) == t::pattern(8192, 99));

  // Errors convert both ways with the C conventions.
  errno = 0;
  CHECK(legacy_read(*file, raw.get(), 16, -1) == -1);  // hipFile 0.4+: errno EINVAL
  CHECK(errno == EINVAL);
  CHECK(legacy_read(hipfile::File(), raw.get(), 16, 0) == -hipFileHandleNotRegistered);
  auto ro = hipfile::File::open(tmp.path(), O_RDONLY);
  REQUIRE(ro.has_value());
  const ssize_t c_ret = hipFileWrite(ro->handle(), raw.get(), 16, 0, 0);
  const int c_errno = errno;
  REQUIRE(c_ret == -1);
  const Error from_c = Error::from_io_return(c_ret);
  CHECK(from_c.sys_errno() == c_errno);
  auto cxx = ro->write(std::span<const std::byte>(raw.bytes(), 16), 0);
  REQUIRE_FALSE(cxx.has_value());
  CHECK(cxx.error() == from_c);
  errno = 0;
  CHECK(cxx.error().to_io_return() == -1);
  CHECK(errno == c_errno);

  const hipFileError_t status = hipFileBufDeregister(raw.get());
  CHECK(Error::from_status(status).to_status().err == status.err);
  CHECK(hipfile::check(status).error() == Error::from_op(hipFileMemoryNotRegistered));
}

TEST_CASE("A descriptor opened and registered by C becomes a File; release gives it back", "[mixed]") {
  t::TempFile tmp(4096, 52);
  const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto f = hipfile::File::adopt(fd);
  REQUIRE(f.has_value());
  auto buf = hipfile::read_to_device(*f);
  REQUIRE(buf.has_value());
  CHECK(t::to_host(buf->data(), 4096) == t::pattern(4096, 52));
  const auto raw = f->release();
  CHECK(raw.fd == fd);
  CHECK(hipFileRead(raw.handle, buf->data(), 4096, 0, 0) == 4096);
  hipFileHandleDeregister(raw.handle);
  CHECK(::close(raw.fd) == 0);
}
