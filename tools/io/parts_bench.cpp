// SPDX-License-Identifier: MIT
#include "parts_bench.hpp"

#include "data_file.hpp"
#include "measurement.hpp"

#include <unistd.h>

namespace hipfile::tools::io {

PartsBench::PartsBench(const Options& o, const std::vector<Worker>& workers, std::size_t slots, Progress& progress)
    : heads_(split_plan(workers, o.resident, true)), rests_(split_plan(workers, o.resident, false)) {
  try {
    heads_fd_ = open_data_file(o.file, o.direct);
    rests_fd_ = open_data_file(o.file, o.direct);
    heads_bench_.emplace(o, heads_, slots, heads_fd_, progress);
    rests_bench_.emplace(o, rests_, slots, rests_fd_, progress);
  } catch (...) {
    heads_bench_.reset();
    for (int fd : {heads_fd_, rests_fd_})
      if (fd >= 0) close(fd);
    throw;
  }
}

PartsBench::~PartsBench() {
  heads_bench_.reset();  // deregisters the handles before their descriptors close
  rests_bench_.reset();
  close(heads_fd_);
  close(rests_fd_);
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
