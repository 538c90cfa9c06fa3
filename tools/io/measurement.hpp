// SPDX-License-Identifier: MIT
// The figures of one measurement across its repetitions: best and median rate, per GPU too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::tools::io {

struct Measurement {
  std::string key;    // JSON name: "hipfile", "pinned_h2d", "raw", "naive", "sync_serial", ...
  std::string label;  // table name
  std::uint64_t bytes = 0;                      // per pass
  std::uint64_t ops = 0;                        // requests per pass
  std::vector<std::uint64_t> slot_bytes;        // per GPU, per pass (empty: not per GPU)
  std::vector<double> seconds;                  // one per pass
  std::vector<std::vector<double>> slot_seconds;  // [pass][gpu]
  std::vector<double> cpu_seconds;  // per pass: user + system of the whole process (every thread)

  bool measured() const { return !seconds.empty(); }
  double best_gbps() const;
  double median_gbps() const;
  double best_iops() const;    // requests per second
  double median_iops() const;
  double slot_best_gbps(std::size_t slot) const;
  double slot_median_gbps(std::size_t slot) const;
  /// CPU seconds per GB (1e9 bytes) moved: the median of the passes; NaN when not measured.
  double median_cpu_per_gb() const;
};

/// User + system CPU seconds the process has used so far, all threads (getrusage RUSAGE_SELF).
double process_cpu_seconds();

/// a / b, or NaN when either is missing.
double ratio(double a, double b);

}  // namespace hipfile::tools::io
