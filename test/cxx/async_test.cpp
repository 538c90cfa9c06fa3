// SPDX-License-Identifier: MIT
// hipfile::AsyncOp with read_async/write_async on a stream, and stream registration.
#include "catch.hpp"
#include <hipfile++/async.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>

#include <chrono>
#include <thread>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

using namespace hipfile::test;

static_assert(!std::is_move_constructible_v<hipfile::AsyncOp>);
static_assert(!std::is_copy_constructible_v<hipfile::AsyncOp>);
static_assert(std::is_nothrow_move_constructible_v<hipfile::AsyncIo>);
static_assert(std::is_nothrow_move_assignable_v<hipfile::AsyncIo>);
static_assert(!std::is_copy_constructible_v<hipfile::AsyncIo>);

TEST_CASE("read_async then write_async on one stream") {
  auto drv = hipfile::Driver::open();
  REQUIRE(drv);
  constexpr std::size_t n = 1u << 20;
  TempFile tf(2 * n, 4);
  auto file = hipfile::File::open(tf.path(), O_RDWR);
  REQUIRE(file);
  DeviceMem dev(n);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  REQUIRE(hipfile::register_stream(s, HIPFILE_STREAM_FIXED_FILE_SIZE));
  CHECK(hipfile::register_stream(s, 0).error().op() == hipFileInvalidValue);

  hipfile::AsyncOp rd, wr;
  rd.size = n;
  wr.size = n;
  wr.file_offset = static_cast<hoff_t>(n);
  REQUIRE(hipfile::read_async(*file, dev.get(), rd, s));
  REQUIRE(hipfile::write_async(*file, dev.get(), wr, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(rd.result());
  CHECK(*rd.result() == n);
  REQUIRE(wr.result());
  CHECK(*wr.result() == n);
  auto bytes = read_file(tf.path());
  CHECK(std::equal(bytes.begin() + n, bytes.end(), pattern(n, 4).begin()));

  hipfile::AsyncOp bad;
  bad.size = 2 * n;  // beyond the allocation
  CHECK(hipfile::read_async(*file, dev.get(), bad, s).error().op() == hipFileInvalidValue);
  REQUIRE(hipfile::deregister_stream(s));
  CHECK(hipfile::deregister_stream(s).error().op() == hipFileInvalidValue);
  HIP_CHECK(hipStreamDestroy(s));
}

TEST_CASE("AsyncIo: stream-ordered reads in a std::vector, then a write of what they read", "[async]") {
  constexpr std::size_t kOps = 16, kOp = 64 * 1024;
  TempFile tf(kOps * kOp, 7);
  auto file = hipfile::File::open(tf.path(), O_RDWR);
  REQUIRE(file);
  auto dev = hipfile::DeviceBuffer::allocate(kOps * kOp);
  REQUIRE(dev);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  std::vector<hipfile::AsyncIo> ops;
  for (std::size_t i = 0; i < kOps; ++i) {
    auto op = hipfile::AsyncIo::read(*file, dev->as<float>().subspan(i * kOp / 4, kOp / 4),
                                     static_cast<hipfile::Offset>(i * kOp), s);
    REQUIRE(op);
    ops.push_back(std::move(*op));
  }
  // Ordered after every read on the same stream: appends the device bytes to the file.
  auto wr = hipfile::AsyncIo::write(*file, dev->bytes(), static_cast<hipfile::Offset>(kOps * kOp), s);
  REQUIRE(wr);
  CHECK(wr->get() == hipfile::Result<std::size_t>(kOps * kOp));
  for (auto& op : ops) {
    CHECK(op.done());
    CHECK(op.result() == hipfile::Result<std::size_t>(kOp));
  }
  const auto bytes = read_file(tf.path());
  REQUIRE(bytes.size() == 2 * kOps * kOp);
  CHECK(std::equal(bytes.begin() + kOps * kOp, bytes.end(), pattern(kOps * kOp, 7).begin()));
  HIP_CHECK(hipStreamDestroy(s));
}

TEST_CASE("AsyncIo: destroying one the stream has not passed waits for it", "[async]") {
  constexpr std::size_t kOp = 256 * 1024;
  TempFile tf(kOp, 8);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  auto dev = hipfile::DeviceBuffer::allocate(kOp);
  REQUIRE(dev);
  fill_device(dev->data(), 0, kOp);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  // Holds the stream back so the read is still queued when the AsyncIo dies.
  HIP_CHECK(launch_host_func(s, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }, nullptr));
  {
    auto op = hipfile::AsyncIo::read(*file, dev->bytes(), 0, s);
    REQUIRE(op);
    hipfile::AsyncIo moved = std::move(*op);
    CHECK(!*op);
    CHECK(moved);
  }  // no stream synchronisation after this point: the destructor has waited
  CHECK(to_host(dev->data(), kOp) == pattern(kOp, 8));
  HIP_CHECK(hipStreamDestroy(s));
}

TEST_CASE("AsyncIo: refusals and failures carry the operation, path and range", "[async]") {
  TempFile tf(4096, 9);
  auto ro = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(ro);
  auto dev = hipfile::DeviceBuffer::allocate(4096);
  REQUIRE(dev);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  auto neg = hipfile::AsyncIo::read(*ro, dev->bytes(), -1, s);
  REQUIRE(!neg);
  CHECK(neg.error().op() == hipFileInvalidValue);  // what hipFileReadAsync gives a C caller
  CHECK(*neg.error().offset() == -1);
  CHECK(neg.error().message() == "read of 4096 bytes at offset -1 from '" + tf.path() +
                                     "': invalid argument: the file offset -1 is negative");
  auto past = hipfile::AsyncIo::read(*ro, std::span<std::byte>(dev->bytes().data() + 2048, 4096), 0, s);
  REQUIRE(!past);
  CHECK(past.error().op() == hipFileInvalidValue);
  CHECK(past.error().explanation() == "size 4096 at buffer offset 2048 runs past the buffer's 4096 bytes");
  auto w = hipfile::AsyncIo::write(*ro, dev->bytes(), 0, s);  // read-only: fails when it runs
  REQUIRE(w);
  auto r = w->get();
  REQUIRE(!r);
  CHECK(r.error().sys_errno() == EBADF);
  CHECK(r.error().message() == "write of 4096 bytes at offset 0 to '" + tf.path() + "': Bad file descriptor (EBADF)");
  hipfile::Registration none;
  CHECK(hipfile::AsyncIo::read(*ro, none, dev->bytes(), 0, s).error().op() == hipFileMemoryNotRegistered);
  hipfile::AsyncIo empty;
  CHECK(empty.get().error().op() == hipFileInvalidValue);
  CHECK(!empty.done());
  CHECK(read_file(tf.path()) == pattern(4096, 9));
  HIP_CHECK(hipStreamDestroy(s));
}
