// SPDX-License-Identifier: MIT
// hipfile::AsyncOp with read_async/write_async on a stream, and stream registration.
#include "catch.hpp"
#include <hipfile++/async.hpp>
#include <hipfile++/driver.hpp>
#include <hipfile++/file.hpp>

#include <fcntl.h>

#include <type_traits>

#include "test_support.hpp"

using namespace hipfile::test;

static_assert(!std::is_move_constructible_v<hipfile::AsyncOp>);
static_assert(!std::is_copy_constructible_v<hipfile::AsyncOp>);

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
