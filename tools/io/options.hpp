// SPDX-License-Identifier: MIT
// hipfile-io's command line: what to measure and how.
#pragma once

#include "memory.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace hipfile::tools::io {

enum class Op { Read, Write };
enum class Access { Sequential, Random };
enum class Api { Sync, Async, Batch };
enum class Cache { Hot, Cold, Partial };

struct Baselines {
  bool copy = true;    // pinned hipMemcpy host<->device
  bool raw = true;     // parallel pread/pwrite into pinned host memory
  bool naive = true;   // serial pageable pread + hipMemcpy (upstream's fallback)
  bool serial = true;  // the same requests as sync hipFileRead/Write in one thread (async/batch only)
  bool hand = true;    // pread + hipMemcpy by hand with the same threads, pinned buffers (device memory)
  bool stream = true;  // one sequential buffered reader, large blocks (reads only)
  bool parts = true;   // --resident: hipfile on the resident and the other parts alone, summed
};

struct Options {
  Op op = Op::Read;
  Access access = Access::Sequential;
  Api api = Api::Sync;
  Cache cache = Cache::Hot;
  double resident = 0;              // Cache::Partial: the cached fraction at the head of each request
  MemKind mem = MemKind::Device;
  std::uint64_t io_size = 16u << 20;
  std::uint64_t total = 1u << 30;   // bytes moved per measured pass
  std::uint64_t file_size = 0;      // 0: as large as `total` (--file-per-device: each GPU's largest part)
  int threads = 1;                  // the tool's own I/O threads per device
  int engine_threads = -1;          // HIPFILE_THREADS; -1 leaves the environment alone
  int streams = 4;                  // async: streams per worker
  int batch = 128;                  // batch: entries per batch
  int reps = 3;
  bool registered = false;
  bool direct = false;
  bool verify = false;
  bool progress = false;
  bool fsync = false;               // writes: fdatasync inside the timed pass
  bool create = false;
  bool overwrite = false;           // --overwrite: an existing file may be written
  std::string file;                 // empty: a file of the run's own in a temporary directory
  bool file_per_device = false;     // each GPU moves its part to or from a file of its own, `file`.N
  std::string json_path;
  std::vector<int> devices{0};
  bool all_devices = false;         // --multi-gpu: every device the runtime reports
  Baselines baselines;
  std::uint64_t seed = 1;
};

/// Parses argv; on --help prints usage and exits 0, on a usage error prints it and exits 2.
/// The checks that need the number of GPUs are made here too, except with --multi-gpu and
/// --file-per-device, where the caller calls check_sizes once it has asked the runtime.
Options parse_options(int argc, char** argv);

/// Sets the default --file-size and refuses sizes that do not fit the plan over `devices` GPUs
/// (a usage error, exit 2). With --file-per-device every file holds one GPU's part, so the
/// default and the checks depend on how many GPUs share the pass.
void check_sizes(Options& options, std::size_t devices);

/// The path of the data file of the GPU `device`: `file`.N with --file-per-device, else `file`.
std::string data_file_path(const Options& options, int device);

std::string_view op_name(Op op);
std::string_view access_name(Access access);
std::string_view api_name(Api api);
std::string_view cache_name(Cache cache);

}  // namespace hipfile::tools::io
