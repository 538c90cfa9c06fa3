// SPDX-License-Identifier: MIT
// hipFileDriverGetFastpathReport's contract (include/hipfile/hipfile_stats.h): bad input, the
// state before any driver open, truncation, and that the report outlives the close. Its own
// program, so that "never opened" is true when the first test case runs.
#include "catch.hpp"
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>

#include <cstring>
#include <string>

#include "helpers.hpp"

using namespace hipfile::test;

TEST_CASE("The fastpath report: before any open, bad input, truncation, after close", "[report]") {
  REQUIRE(hipFileUseCount() == 0);
  char buf[HIPFILE_FASTPATH_REPORT_MAX];

  // Bad input is refused and nothing is written, opened or not.
  CHECK(hipFileDriverGetFastpathReport(nullptr, sizeof buf).err == hipFileInvalidValue);
  std::memset(buf, 'x', sizeof buf);
  CHECK(hipFileDriverGetFastpathReport(buf, 0).err == hipFileInvalidValue);
  CHECK(buf[0] == 'x');

  // Never opened in this process: no decision yet, and the call did not open the driver.
  CHECK(hipFileDriverGetFastpathReport(buf, sizeof buf).err == hipFileDriverNotInitialized);
  CHECK(buf[0] == '\0');
  CHECK(hipFileUseCount() == 0);

  {
    ClosedDriver closed;
    REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
    REQUIRE(hipFileDriverGetFastpathReport(buf, sizeof buf).err == hipFileSuccess);
    const std::string full = buf;
    INFO(full);
    CHECK(full.rfind("fastpath=", 0) == 0);
    CHECK(full.find(" library=") != std::string::npos);
    CHECK(full.find(" gds=") != std::string::npos);
    CHECK(full.find(" reason=") != std::string::npos);
    CHECK(full.size() < HIPFILE_FASTPATH_REPORT_MAX);

    // Exactly enough room: the whole text.
    std::string exact(full.size() + 1, 'x');
    CHECK(hipFileDriverGetFastpathReport(exact.data(), exact.size()).err == hipFileSuccess);
    CHECK(std::string(exact.c_str()) == full);
    // One byte short, or 10 bytes: the leading len - 1 bytes and a NUL, reported as invalid.
    std::string short_by_one(full.size(), 'x');
    CHECK(hipFileDriverGetFastpathReport(short_by_one.data(), short_by_one.size()).err == hipFileInvalidValue);
    CHECK(std::string(short_by_one.c_str()) == full.substr(0, full.size() - 1));
    char ten[10];
    CHECK(hipFileDriverGetFastpathReport(ten, sizeof ten).err == hipFileInvalidValue);
    CHECK(std::string(ten) == full.substr(0, 9));
    char one[1] = {'x'};
    CHECK(hipFileDriverGetFastpathReport(one, 1).err == hipFileInvalidValue);
    CHECK(one[0] == '\0');

    REQUIRE(hipFileDriverClose().err == hipFileSuccess);
    // The decision of the last open stays readable after the close.
    REQUIRE(hipFileDriverGetFastpathReport(buf, sizeof buf).err == hipFileSuccess);
    CHECK(std::string(buf) == full);
  }
}
