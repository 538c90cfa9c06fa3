// SPDX-License-Identifier: MIT
// hipfile::expected / unexpected: the members hipfile++ and its users rely on, the same whether
// they come from std::expected (C++23 libraries) or the fallback of expected.hpp (C++20).
#include "catch.hpp"

#include <hipfile++/error.hpp>

#include <memory>
#include <string>
#include <type_traits>

using hipfile::Error;
using hipfile::Result;
using hipfile::unexpected;

static_assert(std::is_nothrow_move_constructible_v<Result<std::unique_ptr<int>>>);
static_assert(!std::is_copy_constructible_v<Result<std::unique_ptr<int>>>);

namespace {
Result<int> half(int v) {
  if (v % 2 != 0) return unexpected(Error::from_op(hipFileInvalidValue));
  return v / 2;
}
}  // namespace

TEST_CASE("expected holds a value or an error, with the std::expected members", "[expected]") {
  Result<int> ok = 42;
  REQUIRE(ok.has_value());
  CHECK(static_cast<bool>(ok));
  CHECK(*ok == 42);
  CHECK(ok.value() == 42);
  CHECK(ok.value_or(7) == 42);
  CHECK(ok == 42);
  Result<int> bad = unexpected(Error::from_errno(EIO));
  REQUIRE(!bad);
  CHECK(bad.error().sys_errno() == EIO);
  CHECK(bad.value_or(7) == 7);
  CHECK(bad != ok);
  CHECK(bad == unexpected(Error::from_errno(EIO)));
  Result<std::string> s = std::string("abc");
  CHECK(s->size() == 3);
}

TEST_CASE("and_then, transform and or_else chain as in std::expected", "[expected]") {
  CHECK(half(8).and_then(half) == Result<int>(2));
  CHECK(half(6).and_then(half).error().op() == hipFileInvalidValue);
  CHECK(half(8).transform([](int v) { return std::to_string(v); }) == Result<std::string>("4"));
  CHECK(!half(3).transform([](int v) { return v + 1; }));
  auto recovered = half(3).or_else([](const Error&) { return Result<int>(0); });
  CHECK(recovered == Result<int>(0));
  CHECK(half(4).or_else([](const Error&) { return Result<int>(0); }) == Result<int>(2));
}

TEST_CASE("expected<void> is success or an error", "[expected]") {
  Result<void> ok;
  CHECK(ok.has_value());
  ok.value();  // does nothing on success
  Result<void> bad = unexpected(Error::from_op(hipFileBatchFull));
  REQUIRE(!bad);
  CHECK(bad.error().op() == hipFileBatchFull);
  CHECK(ok != bad);
  int calls = 0;
  auto chained = ok.and_then([&]() -> Result<void> {
    ++calls;
    return {};
  });
  CHECK(chained.has_value());
  CHECK(calls == 1);
  CHECK(bad.transform([] { return 5; }).error().op() == hipFileBatchFull);
}

TEST_CASE("move-only values move through expected", "[expected]") {
  Result<std::unique_ptr<int>> p = std::make_unique<int>(3);
  REQUIRE(p);
  std::unique_ptr<int> taken = std::move(*p);
  CHECK(*taken == 3);
  Result<std::unique_ptr<int>> q = std::move(p);
  CHECK(q.has_value());
}
