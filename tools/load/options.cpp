// SPDX-License-Identifier: MIT
#include "options.hpp"

#include "args.hpp"
#include "file_type.hpp"

#include <getopt.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace hipfile::tools::load {

namespace {

// The manual page: -h/--help prints it. Keep it true to parse() and main.cpp.
constexpr const char* kUsage = R"(NAME
    hipfile-load - load a safetensors checkpoint into GPU memory and report the rate

SYNOPSIS
    hipfile-load [OPTION]... PATH...

DESCRIPTION
    Opens the checkpoint PATH: one .safetensors file, several shard files given together, or
    a Hugging Face index (a PATH ending in .json, e.g. model.safetensors.index.json, whose
    weight_map names the shard of every tensor). Every header is validated first; a bad
    checkpoint is refused with an error naming the file and the tensor, before any GPU
    memory is allocated.
    Then loads the tensors with libhipfile-safetensors: one device allocation per shard
    and GPU, filled by one hipFileRead per shard and GPU where the tensors are contiguous,
    all shards and GPUs at once. It reports the tensors, bytes, seconds and GB/s (1e9
    bytes/s), and the rate as a ratio of the pinned host-to-device copy rate (hipMemcpy from
    hipHostMalloc memory, 64 MiB blocks, 512 MiB per GPU), measured in the same run before
    the load; with several GPUs the ceiling is the sum of theirs.
    The library's driver is opened before the first pass, so its start is not timed. The
    first pass also sets up the engine's pinned staging; --reps > 1 shows the steady rate.
    A progress line is shown on stderr during long loads when stderr is a terminal.

OPTIONS
    N is a decimal integer; LIST is a comma list of integers.

    -g, --device N
        Load every tensor onto GPU N (default 0).
    --devices LIST
        Spread the tensors over these GPUs: in checkpoint order (shard, then offset), the
        first 1/k of the bytes go to the first GPU of the list, the next 1/k to the second,
        and so on (a tensor goes where its first byte falls), as layers are split for
        pipeline parallelism.
    --only NAME|PREFIX
        Load only the tensors named NAME, or whose name continues PREFIX at a dot
        ("model.layers.1" matches "model.layers.1.mlp.up.weight", not "model.layers.10.x";
        "model.layers." matches every layer). May be repeated and may be a comma list; a
        pattern that matches no tensor is a usage error.
    --verify
        After the timed passes, copy every loaded tensor back to the host and compare it with
        a plain pread of the file, byte for byte; the first difference is reported with the
        tensor, its byte and the file offset, and the exit status is 1.
    --json
        Print the report as one JSON document on stdout instead of the text (keys: tool,
        command, files, tensors, bytes, devices, reads, bytes_read, allocations, cache, direct, parallel,
        reps, seconds, seconds_best, seconds_median, allocate_seconds, read_seconds,
        gbps_best, gbps_median, read_gbps_best, pinned_h2d_gbps, vs_pinned_h2d,
        write_gbps, verify, status).
    --list
        Also print every loaded tensor: name, dtype, shape, GPU, bytes.
    --cold
        Before every pass, flush and drop the checkpoint's files from the page cache
        (fdatasync, posix_fadvise(DONTNEED)), so the pass reads from the disk (default:
        whatever the page cache holds).
    --direct
        Read through O_DIRECT descriptors of the files where the file system allows it
        (default: buffered). What is in the page cache is still served from there by the
        library; the rest comes from the disk without filling the page cache.
    --parallel N
        hipFileRead calls in flight per shard and GPU (default 1, at least 1, at most 64):
        1 reads each contiguous range with one call, which the library spreads over its
        worker threads; N cuts it into N pieces (whole MiB) read at the same time, which
        keeps more requests queued at a slow disk.
    -n, --reps N
        Load N times (freeing the memory between passes) and report the best and the median
        (default 1, at least 1).
    --pause MS
        Between passes, after the previous pass's memory is freed and the device is idle,
        wait MS milliseconds (default 500, 0 to 60000), so that the GPU driver's background
        work on the memory just freed does not overlap the next pass (bench/RESULTS.md
        measures both).
    --write PATH
        After the passes, write the loaded tensors from GPU memory to PATH as a safetensors
        file (with the first shard's metadata) and report the write rate. The file is written
        beside PATH and renamed over it, so an existing PATH must be a regular file.
    --progress
        Show the progress line even when stderr is not a terminal.
    -q, --quiet
        Never show the progress line.
    -h, --help
        Print this manual and exit 0.

ENVIRONMENT
    HIPFILE_THREADS, HIPFILE_CHUNK_SIZE, HIPFILE_STAGING_DEPTH
        The library's staging engine: its worker threads (0 or unset: automatic), the bytes
        it stages at a time, the pinned slots per worker (doc/configuration.md).
    HIPFILE_LOG_LEVEL
        The library's log level (default WARN).
    HIPFILE_LOAD_CORRUPT
        For tests: NAME:BYTE changes byte BYTE of tensor NAME in GPU memory after the load,
        so that --verify must find it.

EXIT STATUS
    0   the checkpoint was loaded (and verified, with --verify)
    1   failure: a file that cannot be opened or read or is not a regular file (a FIFO, a
        device, a directory), out of host memory, a GPU that does not exist, a failed
        allocation or hipFileRead, a shard that changed size, a --verify difference
    2   usage error (an unknown option, a malformed value, no PATH, an --only pattern that
        matches nothing, a --write PATH that exists and is not a regular file) or a bad checkpoint (a malformed header or index; the message names
        the file and the tensor)

EXAMPLES
    hipfile-load model.safetensors
        Load a checkpoint onto GPU 0 and print the rate against the pinned copy rate.
    hipfile-load --reps 3 --verify model.safetensors.index.json
        Load a sharded checkpoint three times, then check every byte.
    hipfile-load --devices 0,1 --only model.layers. --json model-0000*.safetensors
        Load the layers of a sharded checkpoint over two GPUs and print JSON.

SEE ALSO
    hipfile-io(1), hipfile-check(1), doc/safetensors.md, doc/tools.md
)";

[[noreturn]] void usage_error(const std::string& message) { hipfile::tools::usage_error("hipfile-load", message); }

// Splits "a,b" into its parts; an empty part is a usage error.
void add_patterns(std::vector<std::string>& out, const std::string& text) {
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty()) usage_error(fmt::format("--only: '{}' has an empty name", text));
    out.push_back(part);
    if (comma == std::string::npos) return;
    start = comma + 1;
  }
}

// --write PATH: the copy is renamed over PATH, so an existing PATH must be a regular file (a
// rename over /dev/null or a FIFO would replace it with the checkpoint).
std::string write_path(const char* path) {
  if (*path == '\0') usage_error("--write needs a PATH");
  struct stat st {};
  if (::stat(path, &st) == 0 && !non_regular_kind(st.st_mode).empty())
    usage_error(fmt::format("--write: '{}' is {}, not a regular file", path, non_regular_kind(st.st_mode)));
  return path;
}

}  // namespace

Options parse(int argc, char** argv) {
  enum { kDevices = 256, kOnly, kVerify, kJson, kList, kCold, kDirect, kParallel, kWrite, kProgress, kPause };
  static const option longs[] = {
      {"device", required_argument, nullptr, 'g'}, {"devices", required_argument, nullptr, kDevices},
      {"only", required_argument, nullptr, kOnly}, {"verify", no_argument, nullptr, kVerify},
      {"json", no_argument, nullptr, kJson},       {"list", no_argument, nullptr, kList},
      {"cold", no_argument, nullptr, kCold},       {"direct", no_argument, nullptr, kDirect},
      {"reps", required_argument, nullptr, 'n'},      {"parallel", required_argument, nullptr, kParallel},
      {"write", required_argument, nullptr, kWrite}, {"progress", no_argument, nullptr, kProgress},
      {"pause", required_argument, nullptr, kPause},
      {"quiet", no_argument, nullptr, 'q'},        {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  Options o;
  bool device_given = false, devices_given = false;
  int c;
  opterr = 0;  // the errors are reported below, in one line
  while ((c = getopt_long(argc, argv, ":g:n:qh", longs, nullptr)) != -1) {
    switch (c) {
      case 'g': {
        auto v = parse_count(optarg);
        if (!v) usage_error(fmt::format("--device: '{}' is not a GPU number", optarg));
        o.devices = {*v};
        device_given = true;
        break;
      }
      case kDevices: {
        auto v = parse_int_list(optarg);
        if (!v || v->empty()) usage_error(fmt::format("--devices: '{}' is not a list of GPU numbers", optarg));
        for (int d : *v)
          if (d < 0) usage_error(fmt::format("--devices: '{}' is not a list of GPU numbers", optarg));
        o.devices = *v;
        devices_given = true;
        break;
      }
      case kOnly: add_patterns(o.only, optarg); break;
      case kVerify: o.verify = true; break;
      case kJson: o.json = true; break;
      case kList: o.list = true; break;
      case kCold: o.cold = true; break;
      case kDirect: o.direct = true; break;
      case 'n': {
        auto v = parse_count(optarg);
        if (!v || *v < 1) usage_error(fmt::format("--reps: '{}' is not a number >= 1", optarg));
        o.reps = *v;
        break;
      }
      case kPause: {
        auto v = parse_count(optarg);
        if (!v || *v > 60000) usage_error(fmt::format("--pause: '{}' is not a number from 0 to 60000", optarg));
        o.pause_ms = *v;
        break;
      }
      case kParallel: {
        auto v = parse_count(optarg);
        if (!v || *v < 1 || *v > 64) usage_error(fmt::format("--parallel: '{}' is not a number from 1 to 64", optarg));
        o.parallel = *v;
        break;
      }
      case kWrite: o.write_back = write_path(optarg); break;
      case kProgress: o.progress = true; break;
      case 'q': o.quiet = true; break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default: usage_error(option_problem(c, argc, argv, longs));
    }
  }
  if (device_given && devices_given) usage_error("--device and --devices exclude each other");
  if (optind == argc) usage_error("missing PATH (a .safetensors file, shards, or an index .json)");
  for (int i = optind; i < argc; ++i) o.paths.emplace_back(argv[i]);
  return o;
}

}  // namespace hipfile::tools::load
