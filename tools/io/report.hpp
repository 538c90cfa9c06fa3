// SPDX-License-Identifier: MIT
// hipfile-io's output: the human table on stdout and the --json document.
#pragma once

#include "measurement.hpp"
#include "options.hpp"
#include "platform.hpp"

#include <string>
#include <vector>

namespace hipfile::tools::io {

struct Report {
  const Options* options = nullptr;
  PlatformInfo platform;
  std::vector<int> devices;
  std::vector<std::string> files;  // the data files: one, or one per GPU (--file-per-device)
  std::string engine_threads;    // HIPFILE_THREADS as the library saw it, or "default"
  std::string command;           // argv joined
  std::string verify = "skipped";  // skipped | passed
  double page_cache_resident = -1;  // fraction of the range in the page cache before the run
  Measurement hipfile;
  Measurement h2d, d2h;          // pinned copy ceilings (all GPUs at once: their aggregate)
  Measurement raw;
  Measurement naive;
  Measurement serial;            // async/batch: the same requests as sync serial calls
  Measurement hand;              // pread + hipMemcpy by hand, the same threads
  Measurement stream;            // one sequential buffered reader (reads)
  Measurement parts;             // --resident: hipfile on the cached and the uncached parts alone, summed

  /// The copy ceiling in the direction of the operation.
  const Measurement& copy_ceiling() const;
};

void print_table(const Report& report);
std::string to_json(const Report& report);

}  // namespace hipfile::tools::io
