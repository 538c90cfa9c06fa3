// SPDX-License-Identifier: MIT
// The buffer table's range logic at its edges.
#include "catch.hpp"

#include "runtime/buffer_table.hpp"

using hipfile::engine::BufferTable;
using hipfile::gpu::MemKind;

TEST_CASE("Containing-range lookups find the registration for any interior byte", "[table]") {
  BufferTable t;
  static std::byte arena[1 << 16];
  std::byte* a = arena + 4096;
  REQUIRE(t.add(a, 4096, 0, MemKind::Device, 0).ok());
  CHECK_FALSE(t.find_containing(a - 1));
  CHECK(t.find_containing(a)->base == a);
  CHECK(t.find_containing(a + 4095)->base == a);
  CHECK_FALSE(t.find_containing(a + 4096));
  REQUIRE(t.add(a + 4096, 0, 0, MemKind::Device, 0).ok());  // zero length: owns its base only
  CHECK(t.find_containing(a + 4096)->length == 0);
  CHECK_FALSE(t.find_containing(a + 4097));
  CHECK(t.add(a + 4096, 10, 0, MemKind::Device, 0).op == hipfile::engine::Error::MemoryAlreadyRegistered);
  CHECK(t.add(a + 4000, 96, 0, MemKind::Device, 0).op == hipfile::engine::Error::MemoryAlreadyRegistered);
  CHECK(t.add(a - 10, 11, 0, MemKind::Device, 0).op == hipfile::engine::Error::MemoryAlreadyRegistered);
  CHECK(t.add(a - 10, 10, 0, MemKind::Device, 0).ok());
  CHECK(t.size() == 3);
  CHECK(t.remove(a));
  CHECK_FALSE(t.remove(a));
  CHECK_FALSE(t.find_containing(a + 10));
  t.clear();
  CHECK(t.size() == 0);
}
