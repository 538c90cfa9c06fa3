// SPDX-License-Identifier: MIT
// hipfile::Pending, File::read_async/write_async, read_all/write_all: many operations in flight
// from one thread, data checked byte for byte, errors decoded, move and destruction semantics.
#include "catch.hpp"
#include <hipfile++/batch.hpp>
#include <hipfile++/device_buffer.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

using namespace hipfile::test;
using hipfile::Pending;

static_assert(!std::is_copy_constructible_v<Pending<>>);
static_assert(!std::is_copy_assignable_v<Pending<>>);
static_assert(std::is_nothrow_move_constructible_v<Pending<>>);
static_assert(std::is_nothrow_move_assignable_v<Pending<>>);
static_assert(std::is_same_v<Pending<>, Pending<std::size_t>>);

TEST_CASE("many read_async in flight from one thread read every byte", "[pending]") {
  constexpr std::size_t kOps = 200, kOp = 16 * 1024;
  TempFile tf(kOps * kOp, 3);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  auto buf = hipfile::DeviceBuffer::allocate(kOps * kOp);
  REQUIRE(buf);
  std::vector<Pending<>> inflight;
  // Issued in reverse file order, so completion order and submission order differ.
  for (std::size_t i = kOps; i-- > 0;)
    inflight.push_back(file->read_async(buf->bytes().subspan(i * kOp, kOp), static_cast<hipfile::Offset>(i * kOp)));
  for (auto& p : inflight) {
    CHECK(p.valid());
    auto n = p.get();
    REQUIRE(n);
    CHECK(*n == kOp);
    CHECK(p.is_ready());
    CHECK(*p.get() == kOp);  // get() may be called again
  }
  CHECK(to_host(buf->data(), buf->size()) == pattern(kOps * kOp, 3));
}

TEST_CASE("write_async of typed spans writes the bytes, read back identical", "[pending]") {
  constexpr std::size_t kFloats = 4096;
  TempFile tf;
  auto file = hipfile::File::open(tf.path(), O_RDWR | O_TRUNC);
  REQUIRE(file);
  auto buf = hipfile::DeviceBuffer::allocate(kFloats * sizeof(float));
  REQUIRE(buf);
  const auto src = pattern(buf->size(), 21);
  to_device(buf->data(), src);
  auto floats = buf->as<float>();
  auto a = file->write_async(floats.first(kFloats / 2), 0);
  auto b = file->write_async(floats.subspan(kFloats / 2), static_cast<hipfile::Offset>(kFloats / 2 * sizeof(float)));
  REQUIRE(a.get() == hipfile::Result<std::size_t>(kFloats / 2 * sizeof(float)));
  REQUIRE(b.get() == hipfile::Result<std::size_t>(kFloats / 2 * sizeof(float)));
  CHECK(read_file(tf.path()) == src);
}

TEST_CASE("a read_async past the end of the file is short, then 0", "[pending]") {
  TempFile tf(5000, 4);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(8192);
  auto short_read = file->read_async(std::span(host), 4096);
  auto at_end = file->read_async(std::span(host), 5000);
  CHECK(short_read.get() == hipfile::Result<std::size_t>(904));
  CHECK(at_end.get() == hipfile::Result<std::size_t>(0));
  CHECK(std::vector<std::byte>(host.begin(), host.begin() + 904) == pattern(904, 4, 4096));
}

TEST_CASE("a zero-length read_async is finished with 0 at once", "[pending]") {
  TempFile tf(64, 1);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  auto p = file->read_async(std::span<std::byte>(), 0);
  CHECK(p.valid());
  CHECK(p.is_ready());
  CHECK(p.get() == hipfile::Result<std::size_t>(0));
}

TEST_CASE("read_async refusals come back through get()", "[pending]") {
  TempFile tf(64, 1);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(64);
  // A one-entry batch: refused as hipFileBatchIOSubmit refuses it, hipFileInvalidValue.
  SECTION("negative offset") {
    const auto e = file->read_async(std::span(host), -1).get().error();
    CHECK(e == hipfile::Error::from_op(hipFileInvalidValue));
    CHECK(e.message() == "read of 64 bytes at offset -1 from '" + tf.path() +
                             "': invalid argument: the file offset -1 is negative");
    CHECK(file->write_async(std::span<const std::byte>(host), -2).get().error().explanation() ==
          "the file offset -2 is negative");
  }
  SECTION("offset + length beyond INT64_MAX") {
    const auto e = file->read_async(std::span(host), INT64_MAX - 10).get().error();
    CHECK(e == hipfile::Error::from_op(hipFileInvalidValue));
    CHECK(e.explanation() == "the file offset 9223372036854775797 plus 64 bytes passes INT64_MAX");
  }
  SECTION("an empty File") {
    hipfile::File empty;
    CHECK(empty.read_async(std::span(host), 0).get().error().op() == hipFileHandleNotRegistered);
  }
  SECTION("a span outside the registration") {
    auto rb = hipfile::make_registered_buffer(4096);
    REQUIRE(rb);
    auto other = hipfile::DeviceBuffer::allocate(64);
    REQUIRE(other);
    CHECK(file->read_async(rb->registration, other->bytes(), 0).get().error().op() == hipFileInvalidValue);
    hipfile::Registration none;
    CHECK(file->read_async(none, other->bytes(), 0).get().error().op() == hipFileMemoryNotRegistered);
  }
}

TEST_CASE("write_async to a read-only file fails with EBADF, decoded as a system error", "[pending]") {
  TempFile tf(4096, 1);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(4096);
  auto r = file->write_async(std::span<const std::byte>(host), 0).get();
  REQUIRE(!r);
  CHECK(r.error().is_system());
  CHECK(r.error().sys_errno() == EBADF);
  CHECK(!r.error().is_hip());
  CHECK(read_file(tf.path()) == pattern(4096, 1));
}

TEST_CASE("read_async into a registered subspan reads the right bytes", "[pending]") {
  TempFile tf(64 * 1024, 8);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  auto rb = hipfile::make_registered_buffer(64 * 1024);
  REQUIRE(rb);
  auto part = rb->bytes().subspan(4096, 8192);
  auto p = file->read_async(rb->registration, part, 16384);
  REQUIRE(p.get() == hipfile::Result<std::size_t>(8192));
  CHECK(to_host(part.data(), part.size()) == pattern(8192, 8, 16384));
}

TEST_CASE("Pending moves: the source becomes empty, the target keeps the operation", "[pending]") {
  TempFile tf(4096, 5);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(4096);
  auto p = file->read_async(std::span(host), 0);
  Pending<> q = std::move(p);
  CHECK(!p.valid());
  CHECK(p.get().error().op() == hipFileInvalidValue);
  Pending<> r;
  CHECK(!r.valid());
  r = std::move(q);
  CHECK(!q.valid());
  CHECK(r.get() == hipfile::Result<std::size_t>(4096));
  CHECK(host == pattern(4096, 5));
}

TEST_CASE("wait_for reports completion; destroying unfinished Pendings leaves no work behind", "[pending]") {
  constexpr std::size_t kOps = 64, kOp = 64 * 1024;
  TempFile tf(kOps * kOp, 6);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(kOps * kOp);
  {
    std::vector<Pending<>> dropped;
    for (std::size_t i = 0; i < kOps; ++i)
      dropped.push_back(file->read_async(std::span(host).subspan(i * kOp, kOp), static_cast<hipfile::Offset>(i * kOp)));
  }  // each one canceled or waited for: nothing may write into host after this point
  std::fill(host.begin(), host.end(), std::byte{0});
  auto p = file->read_async(std::span(host).first(kOp), 0);
  while (!p.wait_for(std::chrono::milliseconds(1))) {
  }
  CHECK(p.is_ready());
  CHECK(p.get() == hipfile::Result<std::size_t>(kOp));
  CHECK(std::vector<std::byte>(host.begin(), host.begin() + kOp) == pattern(kOp, 6));
  CHECK(std::all_of(host.begin() + kOp, host.end(), [](std::byte b) { return b == std::byte{0}; }));
  // The file can be closed at once: no operation of the dropped Pendings still holds the handle.
  REQUIRE(file->close());
}

TEST_CASE("read_all and write_all move a list of requests, one result each in order", "[pending]") {
  constexpr std::size_t kReq = 300, kOp = 4096;
  TempFile tf;
  auto file = hipfile::File::open(tf.path(), O_RDWR | O_TRUNC);
  REQUIRE(file);
  const auto src = pattern(kReq * kOp, 12);
  auto dev = hipfile::DeviceBuffer::allocate(kReq * kOp);
  REQUIRE(dev);
  to_device(dev->data(), src);
  std::vector<hipfile::WriteRequest> writes;
  for (std::size_t i = 0; i < kReq; ++i)
    writes.push_back({dev->bytes().subspan(i * kOp, kOp), static_cast<hipfile::Offset>(i * kOp)});
  auto written = hipfile::write_all(*file, writes);
  REQUIRE(written.size() == kReq);
  for (const auto& w : written) CHECK(w == hipfile::Result<std::size_t>(kOp));
  CHECK(read_file(tf.path()) == src);

  auto back = hipfile::DeviceBuffer::allocate(kReq * kOp);
  REQUIRE(back);
  std::vector<hipfile::ReadRequest> reads;
  for (std::size_t i = 0; i < kReq; ++i)  // typed spans go straight in
    reads.push_back({back->as<std::uint32_t>().subspan(i * kOp / 4, kOp / 4), static_cast<hipfile::Offset>(i * kOp)});
  reads.push_back({back->bytes().first(0), 0});                                        // zero length: 0
  reads.push_back({back->bytes().first(kOp), static_cast<hipfile::Offset>(kReq * kOp)});  // at the end: 0
  reads.push_back({back->bytes().first(kOp), -4096});                                  // refused
  auto got = hipfile::read_all(*file, reads);
  REQUIRE(got.size() == kReq + 3);
  for (std::size_t i = 0; i < kReq; ++i) CHECK(got[i] == hipfile::Result<std::size_t>(kOp));
  CHECK(got[kReq] == hipfile::Result<std::size_t>(0));
  CHECK(got[kReq + 1] == hipfile::Result<std::size_t>(0));
  REQUIRE(!got[kReq + 2]);
  CHECK(got[kReq + 2].error().op() == hipFileInvalidValue);
  CHECK(to_host(back->data(), back->size()) == src);
}
