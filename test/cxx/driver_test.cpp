// SPDX-License-Identifier: MIT
// hipfile::Driver: one scoped reference of the driver's reference count.
#include "catch.hpp"

#include <hipfile++/driver.hpp>

#include <type_traits>
#include <string>
#include <utility>

using hipfile::Driver;

static_assert(!std::is_copy_constructible_v<Driver>);
static_assert(!std::is_copy_assignable_v<Driver>);
static_assert(std::is_nothrow_move_constructible_v<Driver>);
static_assert(std::is_nothrow_move_assignable_v<Driver>);
static_assert(std::is_nothrow_default_constructible_v<Driver>);
static_assert(std::is_nothrow_destructible_v<Driver>);

TEST_CASE("A default Driver holds no reference", "[driver]") {
  const auto before = Driver::use_count();
  {
    Driver d;
    CHECK_FALSE(d);
    CHECK(Driver::use_count() == before);
  }
  CHECK(Driver::use_count() == before);
}

TEST_CASE("Driver::open takes one reference and destruction drops it", "[driver]") {
  const auto before = Driver::use_count();
  {
    auto d = Driver::open();
    REQUIRE(d.has_value());
    CHECK(static_cast<bool>(*d));
    CHECK(Driver::use_count() == before + 1);
    auto d2 = Driver::open();
    REQUIRE(d2.has_value());
    CHECK(Driver::use_count() == before + 2);
  }
  CHECK(Driver::use_count() == before);
}

TEST_CASE("A moved-from Driver releases nothing", "[driver]") {
  const auto before = Driver::use_count();
  auto d = Driver::open();
  REQUIRE(d.has_value());
  {
    Driver moved(std::move(*d));
    CHECK_FALSE(*d);
    CHECK(moved);
    d->reset();  // the moved-from object has nothing to drop
    CHECK(Driver::use_count() == before + 1);
  }
  CHECK(Driver::use_count() == before);
}

TEST_CASE("Driver move-assignment drops the old reference now", "[driver]") {
  const auto before = Driver::use_count();
  auto a = Driver::open();
  auto b = Driver::open();
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(Driver::use_count() == before + 2);
  *a = std::move(*b);
  CHECK(Driver::use_count() == before + 1);
  CHECK(*a);
  CHECK_FALSE(*b);
  *a = Driver();
  CHECK(Driver::use_count() == before);
}

TEST_CASE("Driver::release gives the reference to the caller", "[driver]") {
  const auto before = Driver::use_count();
  {
    auto d = Driver::open();
    REQUIRE(d.has_value());
    CHECK(d->release());
    CHECK_FALSE(*d);
    CHECK_FALSE(d->release());
  }
  CHECK(Driver::use_count() == before + 1);
  REQUIRE(hipfile::check(hipFileDriverClose()).has_value());
  CHECK(Driver::use_count() == before);
}

TEST_CASE("Driver::close reports the status of hipFileDriverClose", "[driver]") {
  const auto before = Driver::use_count();
  auto d = Driver::open();
  REQUIRE(d.has_value());
  CHECK(d->close().has_value());
  CHECK_FALSE(*d);
  CHECK(Driver::use_count() == before);
  CHECK(d->close().has_value());  // empty: nothing to close

  if (before == 0) {
    // Somebody else closed our reference behind our back: close() reports what C said.
    auto e = Driver::open();
    REQUIRE(e.has_value());
    REQUIRE(hipfile::check(hipFileDriverClose()).has_value());
    auto r = e->close();
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error() == hipfile::Error::from_op(hipFileDriverNotInitialized));
  }
}

TEST_CASE("Driver::properties answers while the driver is open", "[driver]") {
  auto d = Driver::open();
  REQUIRE(d.has_value());
  auto props = Driver::properties();
  // doc/differences.md: nothing is a stub; hipFileDriverGetProperties must answer while open.
  INFO("hipFileDriverGetProperties: " << (props ? std::string("ok") : props.error().message()));
  REQUIRE(props.has_value());
}
