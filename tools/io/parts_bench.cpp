// SPDX-License-Identifier: MIT
#include "parts_bench.hpp"

#include "data_file.hpp"
#include "measurement.hpp"

namespace hipfile::tools::io {

PartsBench::PartsBench(const Options& o, const std::vector<Worker>& workers, std::size_t slots, Progress& progress)
    : heads_(split_plan(workers, o.resident, true)), rests_(split_plan(workers, o.resident, false)) {
  heads_file_.emplace_back(o.file, o.direct, false);  // --resident: reads only
  rests_file_.emplace_back(o.file, o.direct, false);
  heads_bench_.emplace(o, heads_, slots, heads_file_, progress);
  rests_bench_.emplace(o, rests_, slots, rests_file_, progress);
}

PartsBench::Pass PartsBench::run(const std::function<void()>& prepare) {
  Pass p;
  double cpu0 = process_cpu_seconds();
  p.seconds = heads_bench_->run(false).seconds;
  p.cpu_seconds = process_cpu_seconds() - cpu0;
  prepare();
  cpu0 = process_cpu_seconds();
  p.seconds += rests_bench_->run(false).seconds;
  p.cpu_seconds += process_cpu_seconds() - cpu0;
  return p;
}

}  // namespace hipfile::tools::io
