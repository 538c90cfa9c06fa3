// SPDX-License-Identifier: MIT
#include "skip.hpp"

#include "catch.hpp"

#include <mutex>

namespace hipfile::test {
namespace {
std::mutex skips_mutex;
std::vector<std::string>& skips() {
  static std::vector<std::string> all;
  return all;
}
}  // namespace

void record_skip(const std::string& reason) {
  const std::string name = Catch::getResultCapture().getCurrentTestName();
  std::lock_guard lock(skips_mutex);
  skips().push_back(name + ": " + reason);
}

std::vector<std::string> recorded_skips() {
  std::lock_guard lock(skips_mutex);
  return skips();
}

}  // namespace hipfile::test
