// SPDX-License-Identifier: MIT
#include "options.hpp"

#include "args.hpp"
#include "printable.hpp"

#include <hipfile-safetensors/write.hpp>

#include <getopt.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
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
    With --slice or --rank, each tensor is read as a slice of one dimension instead, with
    fill() into one device buffer the tool allocates per pass (every slice 256-byte aligned
    in it): a slice of the first dimension is one contiguous read, a slice of another one
    reads the rows that hold it (from its first row to its last) and places them with 2-D
    copies. The report then gives the bytes of the slices, the bytes read from the files
    (a strided slice counts the rows it spans) and the checkpoint's bytes.

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
    --slice DIM:START:STOP
        Read every selected tensor that has a dimension DIM (counted from 0) as its elements
        START to STOP - 1 of that dimension, every other dimension whole, as
        get_slice(name)[..., START:STOP, ...] does. As in Python slicing, a STOP past a
        tensor's dimension is cut to its length and a START past it gives an empty slice.
        Tensors with fewer dimensions (scalars included), and tensors of F4 or F6 elements
        (packed below a byte, so a slice would not start on a byte), are read whole.
        Excludes --rank.
    --rank R, --world-size N
        Read rank R's share (0 <= R < N) of every selected tensor split over N ranks of a
        tensor-parallel group, by --layout: shares of ceil(length / N) elements, the last
        ones shorter or empty where N does not divide the length. Scalars, and F4 and F6
        tensors, are read whole on every rank. Given together.
    --layout column|row|vocabulary
        With --rank: column (the default) splits dimension 0 of every tensor (a
        column-parallel linear's [out, in] weight and its bias); row splits the last
        dimension of tensors of two or more dimensions and reads 1-D tensors whole (a
        row-parallel linear, whose bias every rank adds once); vocabulary splits dimension 0
        (an embedding's [vocab, hidden] rows). Under column and vocabulary the ranks' bytes
        add up to the tensors' bytes.
    --verify
        After the timed passes, copy every loaded tensor back to the host and compare it with
        a plain pread of the file, byte for byte (a slice: each of its rows read with pread
        from where the file holds it); the first difference is reported with the
        tensor, its byte and the file offset, and the exit status is 1.
    --json
        Print the report as one JSON document on stdout instead of the text (keys: tool,
        command, files, tensors, bytes, devices, reads, bytes_read, allocations, cache, direct, parallel,
        reps, seconds, seconds_best, seconds_median, allocate_seconds, read_seconds,
        gbps_best, gbps_median, read_gbps_best, pinned_h2d_gbps, vs_pinned_h2d,
        write_gbps, verify, status, and checkpoint_bytes, slice, rank, world_size, layout:
        the last four null without --slice or --rank; bytes is the bytes loaded (of the
        slices), bytes_read what was read from the files).
    --list
        Also print every loaded tensor: name, dtype, shape, GPU, bytes (a slice: its shape,
        and "slice DIM:START:STOP of SHAPE").
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
        keeps more requests queued at a slow disk. With --slice or --rank: tensors read at
        once, each on its own thread (default 4).
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
        beside PATH and renamed over it, so an existing PATH must be a regular file: a FIFO,
        socket, device, directory or symbolic link there is a usage error.
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
        matches nothing, a --write PATH that exists and is not a regular file, a malformed
        --slice, a --rank not below --world-size, --slice with --rank, --devices or --write
        with either) or a bad checkpoint (a malformed header or index; the message names
        the file and the tensor)

EXAMPLES
    hipfile-load model.safetensors
        Load a checkpoint onto GPU 0 and print the rate against the pinned copy rate.
    hipfile-load --reps 3 --verify model.safetensors.index.json
        Load a sharded checkpoint three times, then check every byte.
    hipfile-load --devices 0,1 --only model.layers. --json model-0000*.safetensors
        Load the layers of a sharded checkpoint over two GPUs and print JSON.
    hipfile-load --rank 1 --world-size 4 --verify model.safetensors.index.json
        Load what rank 1 of a 4-way tensor-parallel group holds of every tensor, and check it.

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
// rename over /dev/null or a FIFO would replace it with the checkpoint). The writer's own rule,
// asked before any GPU is touched rather than after the load.
std::string write_path(const char* path) {
  if (*path == '\0') usage_error("--write needs a PATH");
  auto ok = hipfile::safetensors::check_destination(path);
  if (!ok && ok.error().code() == hipfile::safetensors::Errc::invalid_argument)
    usage_error(fmt::format("--write: '{}' {}", printable(path), ok.error().what()));
  if (!ok) usage_error("--write: " + ok.error().message());
  return path;
}

// A decimal number of [0, 2^64), digits only (no sign, no space).
std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// --slice DIM:START:STOP, START <= STOP.
SliceSpec parse_slice(const std::string& text) {
  const auto a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
  const std::string_view t = text;
  const auto dim = a == std::string::npos ? std::nullopt : parse_u64(t.substr(0, a));
  const auto start = b == std::string::npos ? std::nullopt : parse_u64(t.substr(a + 1, b - a - 1));
  const auto stop = b == std::string::npos ? std::nullopt : parse_u64(t.substr(b + 1));
  if (!dim || !start || !stop || *dim > 64)
    usage_error(fmt::format("--slice: '{}' is not DIM:START:STOP (three numbers, DIM at most 64)", text));
  if (*start > *stop) usage_error(fmt::format("--slice: '{}' starts after it stops", text));
  return SliceSpec{static_cast<std::size_t>(*dim), *start, *stop};
}

Layout parse_layout(const std::string& text) {
  for (Layout l : {Layout::column, Layout::row, Layout::vocabulary})
    if (text == layout_name(l)) return l;
  usage_error(fmt::format("--layout: '{}' is not column, row or vocabulary", text));
}

// The combinations --slice and --rank refuse, and the rank's own bounds.
void check_slicing(const Options& o, bool devices_given, bool rank_given, bool world_given) {
  if (o.slice && (rank_given || world_given)) usage_error("--slice and --rank exclude each other");
  if (rank_given != world_given) usage_error("--rank and --world-size go together");
  if (o.layout && !rank_given) usage_error("--layout needs --rank and --world-size");
  if (rank_given && o.rank >= o.world_size)
    usage_error(fmt::format("--rank {} is not below --world-size {}", o.rank, o.world_size));
  if (!o.slicing()) return;
  const char* which = o.slice ? "--slice" : "--rank";
  if (devices_given) usage_error(fmt::format("--devices does not combine with {}: slices go to one GPU", which));
  if (!o.write_back.empty()) usage_error(fmt::format("--write does not combine with {}", which));
}

}  // namespace

const char* layout_name(Layout l) noexcept {
  switch (l) {
    case Layout::row: return "row";
    case Layout::vocabulary: return "vocabulary";
    default: return "column";
  }
}

Options parse(int argc, char** argv) {
  enum { kDevices = 256, kOnly, kVerify, kJson, kList, kCold, kDirect, kParallel, kWrite, kProgress, kPause,
         kSlice, kRank, kWorldSize, kLayout };
  static const option longs[] = {
      {"device", required_argument, nullptr, 'g'}, {"devices", required_argument, nullptr, kDevices},
      {"only", required_argument, nullptr, kOnly}, {"verify", no_argument, nullptr, kVerify},
      {"json", no_argument, nullptr, kJson},       {"list", no_argument, nullptr, kList},
      {"cold", no_argument, nullptr, kCold},       {"direct", no_argument, nullptr, kDirect},
      {"reps", required_argument, nullptr, 'n'},      {"parallel", required_argument, nullptr, kParallel},
      {"write", required_argument, nullptr, kWrite}, {"progress", no_argument, nullptr, kProgress},
      {"pause", required_argument, nullptr, kPause},
      {"slice", required_argument, nullptr, kSlice}, {"rank", required_argument, nullptr, kRank},
      {"world-size", required_argument, nullptr, kWorldSize}, {"layout", required_argument, nullptr, kLayout},
      {"quiet", no_argument, nullptr, 'q'},        {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  Options o;
  bool device_given = false, devices_given = false, rank_given = false, world_given = false;
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
        o.parallel_given = true;
        break;
      }
      case kSlice: o.slice = parse_slice(optarg); break;
      case kRank: {
        auto v = parse_count(optarg);
        if (!v) usage_error(fmt::format("--rank: '{}' is not a number >= 0", optarg));
        o.rank = *v;
        rank_given = true;
        break;
      }
      case kWorldSize: {
        auto v = parse_count(optarg);
        if (!v || *v < 1) usage_error(fmt::format("--world-size: '{}' is not a number >= 1", optarg));
        o.world_size = *v;
        world_given = true;
        break;
      }
      case kLayout: o.layout = parse_layout(optarg); break;
      case kWrite: o.write_back = write_path(optarg); break;
      case kProgress: o.progress = true; break;
      case 'q': o.quiet = true; break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default: usage_error(option_problem(c, argc, argv, longs));
    }
  }
  if (device_given && devices_given) usage_error("--device and --devices exclude each other");
  check_slicing(o, devices_given, rank_given, world_given);
  // Slices are read by fill(), a tensor per thread: its default of 4 at once (FillOptions).
  if (o.slicing() && !o.parallel_given) o.parallel = 4;
  if (optind == argc) usage_error("missing PATH (a .safetensors file, shards, or an index .json)");
  for (int i = optind; i < argc; ++i) o.paths.emplace_back(argv[i]);
  return o;
}

}  // namespace hipfile::tools::load
