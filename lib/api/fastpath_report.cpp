// SPDX-License-Identifier: MIT
// hipFileDriverGetFastpathReport (include/hipfile/hipfile_stats.h): the library's own fastpath
// decision, for hipfile-check and tests, which link only the public library.
#include <hipfile/hipfile_stats.h>

#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "fastpath/report.hpp"

using hipfile::api::guarded;

static_assert(hipfile::fastpath::Report::kMaxText == HIPFILE_FASTPATH_REPORT_MAX,
              "the documented buffer size must hold every report");

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverGetFastpathReport(char* buf, size_t len) {
  return guarded([&]() -> hipFileError_t {
    if (buf == nullptr || len == 0) return {hipFileInvalidValue, hipSuccess};
    hipfile::fastpath::Report report;
    if (!hipfile::fastpath::last_report(report)) {
      buf[0] = '\0';
      return {hipFileDriverNotInitialized, hipSuccess};
    }
    const std::string text = report.text();
    const std::size_t n = text.size() < len ? text.size() : len - 1;
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
    return {n == text.size() ? hipFileSuccess : hipFileInvalidValue, hipSuccess};
  });
}

}  // extern "C"
