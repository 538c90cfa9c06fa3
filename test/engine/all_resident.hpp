// SPDX-License-Identifier: MIT
// Makes mincore(2) report every page resident while an AllResident lives.
//
// Whether the engine takes the mapped path depends on mincore: on a busy machine a file just
// written can lose pages to reclaim before the read, and a test would see a staged read. Tests
// that expect the mapped path hold an AllResident (the data still comes from the file: mapping
// faults in whatever was evicted); the others get the real answer. all_resident.cpp defines
// mincore, which interposes on libc's for the static core linked into the test executable.
#pragma once

#include <atomic>

namespace hipfile::test {

extern std::atomic<bool> g_all_resident;

struct AllResident {
  AllResident() { g_all_resident = true; }
  ~AllResident() { g_all_resident = false; }
  AllResident(const AllResident&) = delete;
  AllResident& operator=(const AllResident&) = delete;
};

}  // namespace hipfile::test
