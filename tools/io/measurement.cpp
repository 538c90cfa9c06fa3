// SPDX-License-Identifier: MIT
#include "measurement.hpp"

#include "args.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace hipfile::tools::io {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double best(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  return *std::max_element(v.begin(), v.end());
}

}  // namespace

double Measurement::best_gbps() const {
  std::vector<double> r;
  for (double s : seconds) r.push_back(gbps(bytes, s));
  return best(r);
}

double Measurement::median_gbps() const {
  std::vector<double> r;
  for (double s : seconds) r.push_back(gbps(bytes, s));
  return median(r);
}

double Measurement::best_iops() const {
  if (ops == 0) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> r;
  for (double s : seconds) r.push_back(s > 0 ? static_cast<double>(ops) / s : 0.0);
  return best(r);
}

double Measurement::median_iops() const {
  if (ops == 0) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> r;
  for (double s : seconds) r.push_back(s > 0 ? static_cast<double>(ops) / s : 0.0);
  return median(r);
}

double Measurement::slot_best_gbps(std::size_t slot) const {
  std::vector<double> r;
  for (const auto& pass : slot_seconds) r.push_back(gbps(slot_bytes.at(slot), pass.at(slot)));
  return best(r);
}

double Measurement::slot_median_gbps(std::size_t slot) const {
  std::vector<double> r;
  for (const auto& pass : slot_seconds) r.push_back(gbps(slot_bytes.at(slot), pass.at(slot)));
  return median(r);
}

double Measurement::median_cpu_per_gb() const {
  std::vector<double> r;
  if (bytes == 0) return std::numeric_limits<double>::quiet_NaN();
  for (double c : cpu_seconds) r.push_back(c / (static_cast<double>(bytes) / 1e9));
  return median(r);
}

double process_cpu_seconds() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return std::numeric_limits<double>::quiet_NaN();
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

double ratio(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || b <= 0) return std::numeric_limits<double>::quiet_NaN();
  return a / b;
}

}  // namespace hipfile::tools::io
