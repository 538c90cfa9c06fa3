// SPDX-License-Identifier: MIT
#include "fastpath/report.hpp"

#include <mutex>
#include <optional>

namespace hipfile::fastpath {

namespace {
std::mutex g_mu;
std::optional<Report> g_report;  // guarded by g_mu; empty until the first driver open
}  // namespace

std::string Report::text() const {
  std::string t = "fastpath=" + (fastpath.empty() ? std::string("none") : fastpath) +
                  " library=" + (library.empty() ? std::string("none") : library) + " gds=" + (gds ? "yes" : "no") +
                  " reason=" + reason;
  // A bound callers can size a buffer by (HIPFILE_FASTPATH_REPORT_MAX); only an absurd library
  // path or error text could reach it.
  if (t.size() >= kMaxText) t.replace(kMaxText - 4, std::string::npos, "...");
  return t;
}

void publish(Report report) {
  std::lock_guard lock(g_mu);
  g_report = std::move(report);
}

bool last_report(Report& out) {
  std::lock_guard lock(g_mu);
  if (!g_report) return false;
  out = *g_report;
  return true;
}

}  // namespace hipfile::fastpath
