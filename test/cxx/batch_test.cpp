// SPDX-License-Identifier: MIT
// hipfile::Batch: setup limits, submit/poll byte for byte, cancel, move-only ownership.
#include "catch.hpp"
#include <hipfile++/batch.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>

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
