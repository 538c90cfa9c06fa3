// SPDX-License-Identifier: MIT
// hipfile::Batch: setup limits, submit/poll byte for byte, cancel, move-only ownership.
#include "catch.hpp"
#include <hipfile++/batch.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "test_support.hpp"

using namespace hipfile::test;

static_assert(!std::is_copy_constructible_v<hipfile::Batch>);
static_assert(std::is_nothrow_move_constructible_v<hipfile::Batch>);

TEST_CASE("Batch::setup refuses bad sizes") {
  CHECK(hipfile::Batch::setup(0).error().op() == hipFileInvalidValue);
  CHECK(hipfile::Batch::setup(129).error().op() == hipFileInvalidValue);
  auto b = hipfile::Batch::setup(128);
  REQUIRE(b);
  CHECK(b->handle() != nullptr);
  hipfile::Batch moved = std::move(*b);
  CHECK(b->handle() == nullptr);
  CHECK(moved.handle() != nullptr);
}

TEST_CASE("Batch submit and poll read every byte") {
  auto drv = hipfile::Driver::open();
  REQUIRE(drv);
  constexpr unsigned n = 64;
  constexpr std::size_t kOp = 32 * 1024;
  TempFile tf(n * kOp, 9);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  DeviceMem dev(n * kOp);
  std::vector<hipFileIOParams_t> ops;
  for (unsigned i = 0; i < n; ++i)
    ops.push_back(hipfile::batch_op(hipFileBatchRead, file->handle(), dev.get(), kOp, i * kOp, i * kOp,
                                    reinterpret_cast<void*>(std::uintptr_t(i))));
  auto b = hipfile::Batch::setup(n);
  REQUIRE(b);
  REQUIRE(b->submit(ops));
  CHECK(b->submit(ops).error().op() == hipFileBatchFull);
  std::vector<hipFileIOEvents_t> ev(n);
  unsigned got = 0;
  while (got < n) {
    auto done = b->poll(1, ev);
    REQUIRE(done);
    for (const auto& e : *done) {
      CHECK(e.status == hipFileComplete);
      CHECK(e.ret == kOp);
    }
    got += static_cast<unsigned>(done->size());
  }
  CHECK(got == n);
  auto none = b->poll(0, ev, std::chrono::nanoseconds(0));
  REQUIRE(none);
  CHECK(none->empty());
  CHECK(to_host(dev.get(), dev.size()) == pattern(dev.size(), 9));
  REQUIRE(b->cancel());
}

TEST_CASE("Batch in C++ terms: 1000 entries, split across C batches, one result each in order", "[batch]") {
  constexpr std::size_t kEntries = 1000, kOp = 4096;
  TempFile tf(kEntries * kOp, 14);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  auto dev = hipfile::DeviceBuffer::allocate(kEntries * kOp);
  REQUIRE(dev);
  hipfile::Batch batch;
  for (std::size_t i = 0; i < kEntries; ++i)  // scattered: entry i reads file block (i * 7) % n
    batch.add_read(*file, dev->as<std::uint16_t>().subspan(i * kOp / 2, kOp / 2),
                   static_cast<hipfile::Offset>((i * 7 % kEntries) * kOp));
  CHECK(batch.size() == kEntries);
  REQUIRE(batch.submit());
  auto results = batch.wait();
  REQUIRE(results.size() == kEntries);
  for (const auto& r : results) CHECK(r == hipfile::Result<std::size_t>(kOp));
  CHECK(batch.size() == 0);
  const auto host = to_host(dev->data(), dev->size());
  const auto file_bytes = pattern(kEntries * kOp, 14);
  for (std::size_t i = 0; i < kEntries; ++i) {
    CAPTURE(i);
    const auto at = (i * 7 % kEntries) * kOp;
    REQUIRE(std::equal(host.begin() + i * kOp, host.begin() + (i + 1) * kOp, file_bytes.begin() + at));
  }
}

TEST_CASE("Batch: zero-length entries complete as 0, and wait() alone submits", "[batch]") {
  TempFile tf(8192, 2);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  std::vector<std::byte> host(8192);
  hipfile::Batch batch;
  batch.add_read(*file, std::span(host).first(0), 0);
  batch.add_read(*file, std::span(host), 0);
  batch.add_read(*file, std::span(host).first(0), 1 << 20);
  auto results = batch.wait();
  REQUIRE(results.size() == 3);
  CHECK(results[0] == hipfile::Result<std::size_t>(0));
  CHECK(results[1] == hipfile::Result<std::size_t>(8192));
  CHECK(results[2] == hipfile::Result<std::size_t>(0));
  CHECK(host == pattern(8192, 2));
  CHECK(batch.wait().empty());  // empty after wait(), and reusable
}

TEST_CASE("Batch: a write to a read-only file reports -EBADF decoded as EBADF, not as a HIP error", "[batch]") {
  TempFile tf(4096, 3);
  auto ro = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(ro);
  std::vector<std::byte> host(4096, std::byte{0x5a});
  std::vector<std::byte> back(4096);
  hipfile::Batch batch;
  batch.add_write(*ro, std::span<const std::byte>(host), 0);
  batch.add_read(*ro, std::span(back), 0);
  auto results = batch.wait();
  REQUIRE(results.size() == 2);
  REQUIRE(!results[0]);
  CHECK(results[0].error().is_system());
  CHECK(results[0].error().sys_errno() == EBADF);
  CHECK(results[0].error().hip() == hipSuccess);
  CHECK(results[1] == hipfile::Result<std::size_t>(4096));
  CHECK(back == pattern(4096, 3));
  CHECK(read_file(tf.path()) == pattern(4096, 3));
}

TEST_CASE("Batch: a refused entry fails alone, the others in its C batch still run", "[batch]") {
  TempFile tf(3 * 4096, 4);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  hipfile::File empty;
  std::vector<std::byte> host(3 * 4096);
  hipfile::Batch batch;
  batch.add_read(*file, std::span(host).first(4096), 0);
  batch.add_read(empty, std::span(host).subspan(4096, 4096), 4096);  // no handle: refused by the library
  batch.add_read(*file, std::span(host).subspan(8192), 8192);
  batch.add_read(*file, std::span(host).first(4096), -1);  // refused before the library
  auto submitted = batch.submit();
  REQUIRE(!submitted);
  CHECK(submitted.error().op() == hipFileHandleNotRegistered);
  auto results = batch.wait();
  REQUIRE(results.size() == 4);
  CHECK(results[0] == hipfile::Result<std::size_t>(4096));
  REQUIRE(!results[1]);
  CHECK(results[1].error().op() == hipFileHandleNotRegistered);
  CHECK(results[2] == hipfile::Result<std::size_t>(4096));
  REQUIRE(!results[3]);
  CHECK(results[3].error().op() == hipFileInvalidValue);  // what hipFileBatchIOSubmit gives a C caller
  CHECK(results[3].error().message() == "read of 4096 bytes at offset -1 from '" + tf.path() +
                                            "': invalid argument: the file offset -1 is negative");
  CHECK(std::equal(host.begin(), host.begin() + 4096, pattern(4096, 4).begin()));
  CHECK(std::equal(host.begin() + 8192, host.end(), pattern(4096, 4, 8192).begin()));
}

TEST_CASE("Batch: an entry past the end of its device allocation fails with the sizes", "[batch]") {
  TempFile tf(8192, 6);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  DeviceMem dev(4096);
  hipfile::Batch batch;
  batch.add_read(*file, std::span<std::byte>(dev.bytes(), 4096), 0);
  batch.add_read(*file, std::span<std::byte>(dev.bytes() + 2048, 4096), 4096);  // runs 2048 bytes past
  (void)batch.submit();  // the library refuses the C batch; the entries are retried one by one
  auto results = batch.wait();
  REQUIRE(results.size() == 2);
  CHECK(results[0] == hipfile::Result<std::size_t>(4096));
  REQUIRE(!results[1]);
  CHECK(results[1].error() == hipfile::Error::from_op(hipFileInvalidValue));
  CHECK(results[1].error().message() == "read of 4096 bytes at offset 4096 from '" + tf.path() +
                                            "': invalid argument: size 4096 at buffer offset 2048 runs past the "
                                            "buffer's 4096 bytes");
}

TEST_CASE("Batch: destroying a submitted batch cancels or waits, so the memory is free afterwards", "[batch]") {
  constexpr std::size_t kEntries = 300, kOp = 16 * 1024;
  TempFile tf(kEntries * kOp, 5);
  auto file = hipfile::File::open(tf.path(), O_RDONLY);
  REQUIRE(file);
  {
    std::vector<std::byte> host(kEntries * kOp);
    hipfile::Batch batch;
    for (std::size_t i = 0; i < kEntries; ++i)
      batch.add_read(*file, std::span(host).subspan(i * kOp, kOp), static_cast<hipfile::Offset>(i * kOp));
    REQUIRE(batch.submit());
    hipfile::Batch moved = std::move(batch);
    CHECK(batch.size() == 0);
    CHECK(moved.size() == kEntries);
  }  // moved dies before host: under ASan a late write would be a use-after-free
  REQUIRE(file->close());
}
