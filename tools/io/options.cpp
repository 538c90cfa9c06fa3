// SPDX-License-Identifier: MIT
#include "options.hpp"

#include "args.hpp"
#include "plan.hpp"

#include <getopt.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>
#include <string_view>

namespace hipfile::tools::io {
namespace {

// Upper limits of the counts (see count_arg). The library takes at most 256 engine threads.
constexpr int kMaxThreads = 1024;
constexpr int kMaxEngineThreads = 256;
constexpr int kMaxStreams = 1024;
constexpr int kMaxBatch = 4096;
constexpr std::uint64_t kMaxRequests = std::uint64_t{1} << 24;

// The manual page: -h/--help prints it. Keep it true to parse_options and main.cpp.
constexpr const char* kUsage = R"(NAME
    hipfile-io - measure hipFile reads or writes against their ceilings and baselines

SYNOPSIS
    hipfile-io [OPTION]...

DESCRIPTION
    Moves --size bytes per measured pass between a data file and GPU (or host) memory through
    hipFileRead/hipFileWrite (or their async and batch forms) and, in the same run, measures what
    that figure is compared with. Every measurement replays the same plan (the same requests at
    the same offsets on the same threads) on the same file in the same page-cache state, and the
    measurements alternate within each repetition. The measurements, with the --baselines
    name that selects each reference in brackets:
      hipfile             the plan through hipFile (--api sync, async or batch); always taken
      pinned_h2d, pinned_d2h [copy]
                          the copy ceiling: hipMemcpy of 256 MiB blocks from/to pinned host
                          memory, up to 4 GiB per GPU and pass; with several GPUs all of them
                          copy at once, one thread each, and the figure is their aggregate
                          (all bytes over the time until the last GPU finished), with each
                          GPU's own rate beside it
      raw [raw]           parallel pread/pwrite of the plan's requests into pinned host
                          memory, same threads (--threads per GPU times the GPUs: with
                          --devices or --multi-gpu, the host's own limit at that many
                          threads), same files, same O_DIRECT/buffered mode
      naive [naive]       upstream's fallback: per request, on one thread, pread into pageable
                          memory then hipMemcpy (writes: hipMemcpy, then pwrite); device
                          memory only
      by_hand [hand]      pread + hipMemcpy by hand with the same threads, pinned buffers
                          (writes: hipMemcpy, then pwrite); device memory only
      sync_serial [serial]
                          the same requests as sync hipFile calls, one after another on one
                          thread; async and batch only
      stream [stream]     one sequential buffered reader, the way cat or dd reads: the
                          pass's bytes from offset 0 in order on one thread, through the page
                          cache (never O_DIRECT), in blocks of --io-size clamped to 1-16 MiB,
                          into pinned host memory; reads only
      parts [parts]       with --resident only: the same hipfile calls on each request's
                          cached head alone (hot), then on its uncached rest alone (cold),
                          the two passes' seconds summed; its ratio says how close a read of
                          a partly cached range comes to the sum of its parts (want >= 0.91,
                          time <= 1.1x the sum)
    The table on stdout gives each measurement's best and median GB/s (1e9 bytes/s), best
    kIOPS, CPU seconds per GB (user + system of the whole process, median pass) and passes,
    then the ratios of the hipfile figure to each reference (best to best,
    median to median), the per-GPU rates with several GPUs, and "verify: passed" or
    "verify: skipped".
    The data file holds a verifiable pattern: every 8-byte word is a hash of its file offset.
    Write passes (and the write baselines) overwrite it; the --verify pass of a write run
    restores it. hipfile-io writes only to a data file it creates in this run: an existing
    --file that a run would write (-w, --create, or a file smaller than --file-size, which
    would be rewritten with the pattern) is refused unless --overwrite is given. Reads of an
    existing file large enough need no --overwrite, leave its bytes as they are, and open it
    read-only.

OPTIONS
    SIZE takes a byte count with an optional binary suffix k, M, G or T (any case, optionally
    followed by i and/or B): 4096, 64k, 16M, 16MiB, 8G. N is a decimal integer.

  What to measure
    -r, --read
        Read the file into memory (the default).
    -w, --write
        Write memory to the file.
    --seq
        Sequential access (the default): [0, --size) in order, each thread a contiguous part.
    --random
        Random access: --size / --io-size requests at 4 KiB-aligned offsets anywhere in the
        first --file-size bytes, drawn from a fixed seed.
    --seed N
        The seed of the random offsets (default 1).
    -b, --io-size SIZE
        Bytes per request (default 16M; more than --size is clamped to --size). Must be > 0.
    -s, --size SIZE
        Bytes moved per measured pass (default 1G). Must be > 0, and at most 16777216 times
        --io-size (the plan of a pass's requests is held in memory).
    -t, --threads N
        The tool's own I/O threads per GPU (default 1, from 1 to 1024).
    --engine-threads N
        Set HIPFILE_THREADS=N (the library's staging-engine threads; 0 = the library's
        automatic choice, at most 256, the library's own limit) before the driver opens
        (default: leave the environment alone).
    -m, --mem KIND
        The memory the data moves to or from: device (hipMalloc, the default), pinned
        (hipHostMalloc) or pageable (page-aligned malloc).
    --register
        hipFileBufRegister each thread's buffer and address it as base + offset (default off).
    -d, --direct
        Open the data file with O_DIRECT; needs --io-size and --size in multiples of 4 KiB and
        a file system that supports O_DIRECT.
    --buffered
        Open the data file without O_DIRECT (the default).
    --hot
        Read the file's range once before the run, so passes are served from the page cache
        (the default).
    --cold
        Before every measured pass, fdatasync the file and drop it from the page cache with
        posix_fadvise(POSIX_FADV_DONTNEED).
    --resident FRACTION
        Reads: before every measured pass, drop the file from the page cache (as --cold), then
        read the first FRACTION (0 < FRACTION < 1, rounded down to 4 KiB) of every request's
        range back into it, so each request is part cached, part on the disk: with --direct
        this measures the library's page-cache-aware O_DIRECT reads (doc/configuration.md,
        HIPFILE_DIRECT_READS_FROM_CACHE). Adds the parts measurement.
    --api MODE
        sync (hipFileRead/hipFileWrite, the default), async (hipFileReadAsync/WriteAsync on
        --streams streams per thread) or batch (hipFileBatchIOSubmit/GetStatus in batches of
        --batch entries).
    --streams N
        async: streams per thread (default 4, from 1 to 1024).
    --batch N
        batch: entries per batch (default 128, from 1 to 4096).
    --fsync
        Writes: one fdatasync inside each timed pass (every write pass already starts with an
        untimed one). Default off.
    -n, --reps N
        Measured passes per measurement (default 3, at least 1); best and median are reported.
    --devices LIST
        GPUs to use, as a comma list such as 0,1 (default 0). Each gets its own buffers and
        --threads threads and moves a disjoint part of the range, all at once: the first
        GPU the first part, and so on. --size is the pass's total over all of them.
    --multi-gpu
        Use every GPU the runtime reports (overrides --devices).
    --baselines LIST
        all (the default), none, or a comma list of copy, raw, naive, hand, serial, stream, parts (see
        DESCRIPTION for what each measures and when it applies).
    --verify
        After the timed passes, one untimed pass that checks every byte of every request.
        Reads: the data file is first sampled (its first 4 KiB and the last 4 KiB before
        --file-size) and refused when it does not hold the pattern; then each request's
        buffer is compared with the pattern, and the first differing byte is named by its
        file offset.
        Writes: the requests write the pattern, then the file is read back with pread and
        compared. Default off.

  Data file
    -f, --file PATH
        The data file, a regular file: a FIFO, a device or a directory is refused. Created
        with the pattern when missing; an existing file is used as it is (it is only written
        with --overwrite, see DESCRIPTION). Default: hipfile-io.dat in a new directory under
        $TMPDIR (or /tmp), created for the run and removed when it ends, also after an error,
        SIGINT, SIGTERM or SIGHUP.
    --file-size SIZE
        The file's size (default --size). Random access spreads over it; sequential access
        needs it >= --size (--file-per-device: >= each GPU's part); it must be >= --io-size.
    --create
        Rewrite the file with the pattern even if it exists (an existing file needs
        --overwrite too).
    --overwrite
        Allow writing to an existing --file: the write passes of -w, --create, and rewriting
        a file smaller than --file-size with the pattern. Without it those runs are refused
        before any byte is written.
    --file-per-device
        Each GPU moves its part of the pass to or from a data file of its own, the --file path
        with a dot and the GPU's number appended (PATH.0, PATH.1, ... for --devices 0,1,...),
        from offset 0 of that file; without it all GPUs share the one file. Each file is
        created and checked as the single file is. --file-size is then the size of each file
        (default: the largest part of --size one GPU moves). Not with --resident.

  Output
    --json FILE
        Also write the results as JSON to FILE (- for stdout, after the table). Keys: tool,
        command, machine, config, page_cache_resident, results.<measurement> (label,
        bytes_per_pass, seconds, gbps_best, gbps_median, ops_per_pass, iops_best,
        iops_median, cpu_seconds, cpu_s_per_gb, and per_device where it applies),
        ratios.vs_pinned_copy, vs_raw, vs_naive, vs_by_hand, vs_sync_serial, vs_stream (each
        {best, median}), verify, status.
    --progress
        Show the progress line (rewritten on stderr) even when stderr is not a terminal; it
        is shown on a terminal by default.
    -h, --help
        Print this manual and exit 0.

ENVIRONMENT
    HIPFILE_THREADS
        The library's staging-engine threads (0 or unset: automatic); --engine-threads sets
        it. Its value, or "default", is printed and written as config.engine_threads.
    HIPFILE_CHUNK_SIZE, HIPFILE_STAGING_DEPTH, HIPFILE_INLINE_THRESHOLD, HIPFILE_PARALLEL_IO,
    HIPFILE_MAPPED_READS, HIPFILE_FORCE_COMPAT_MODE
        Shape the library's engine for the hipfile measurement (doc/configuration.md).
    HIPFILE_LOG_LEVEL
        The library's log level (default WARN).

EXIT STATUS
    0   the measurements ran (and --verify passed)
    1   failure: an I/O or HIP error, a verification mismatch (the message names the file
        offset of the first differing byte), a data file without the pattern under --verify,
        an unsupported mode (O_DIRECT refused by the file system, async or batch missing in
        the library), no GPU or a GPU that does not exist, a --file that is not a regular
        file, an existing --file that the run would write without --overwrite, a --json FIFO that nobody reads, out of host memory
    2   usage error: an unknown option, a missing or malformed value, a count or size out of
        range, inconsistent sizes

EXAMPLES
    hipfile-io -f /mnt/nvme/hipfile-io.dat -s 4G -t 4 --direct --cold
        Cold O_DIRECT sequential reads of 4 GiB per pass into device memory, four threads.
    hipfile-io -w -f /mnt/nvme/w.dat -s 2G --register --json write.json
        Writes from registered device memory, with a JSON record (add --overwrite when
        w.dat exists from an earlier run).
    hipfile-io --random -b 4k -s 64M --file-size 8G -t 8 --baselines hand,raw
        Random 4 KiB reads (IOPS) compared with pread + hipMemcpy by hand and raw pread.
    hipfile-io -s 64M -b 1M --reps 1 --baselines none --verify
        A quick correctness check of the read path.
    hipfile-io -f /mnt/nvme/mg.dat -s 8G -b 1G --devices 0,1,2,3 --file-per-device
        Hot reads of 2 GiB per GPU from four files, mg.dat.0 to mg.dat.3, all GPUs at once,
        against the four GPUs' pinned copy ceiling taken at once.

SEE ALSO
    hipfile-check(1), hipfile-cp(1), hipfile-stats(1), doc/tools.md, doc/configuration.md,
    bench/run.sh
)";

[[noreturn]] void usage_error(const std::string& message) { tools::usage_error("hipfile-io", message); }

std::uint64_t size_arg(const char* name, const char* text) {
  auto v = parse_size(text);
  if (!v) usage_error(fmt::format("{}: '{}' is not a size (e.g. 4096, 64k, 16M, 8G)", name, text));
  return *v;
}

// A count from min to max: the limits keep every per-thread buffer, stream and batch the tool
// allocates within what a machine can give, so an absurd value is a usage error, not an abort.
int count_arg(const char* name, const char* text, int min, int max = std::numeric_limits<int>::max()) {
  auto v = parse_count(text);
  if (!v || *v < min || *v > max) {
    if (max == std::numeric_limits<int>::max()) usage_error(fmt::format("{}: '{}' is not a number >= {}", name, text, min));
    usage_error(fmt::format("{}: '{}' is not a number from {} to {}", name, text, min, max));
  }
  return *v;
}

Baselines baselines_arg(std::string_view text) {
  Baselines b{false, false, false, false, false, false, false};
  if (text == "all") return Baselines{};
  if (text == "none") return b;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    if (item == "copy") b.copy = true;
    else if (item == "raw") b.raw = true;
    else if (item == "naive") b.naive = true;
    else if (item == "serial") b.serial = true;
    else if (item == "hand") b.hand = true;
    else if (item == "stream") b.stream = true;
    else if (item == "parts") b.parts = true;
    else usage_error(fmt::format("--baselines: unknown '{}' (copy, raw, naive, serial, hand, stream, parts, all, none)", item));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return b;
}

// --json FILE, checked now rather than after the whole run: not empty, not a directory.
std::string json_path(const char* path) {
  if (*path == '\0') usage_error("--json needs a FILE (- for stdout)");
  struct stat st {};
  if (::stat(path, &st) == 0 && S_ISDIR(st.st_mode)) usage_error(fmt::format("--json: '{}' is a directory", path));
  return path;
}

enum LongOnly {
  kSeq = 256, kRandom, kEngineThreads, kRegister, kBuffered, kHot, kCold, kApi, kStreams, kBatch, kFsync,
  kDevices, kMultiGpu, kBaselines, kVerify, kFileSize, kCreate, kJson, kProgress, kSeed, kResident, kFilePerDevice,
  kOverwrite
};

}  // namespace

std::string_view op_name(Op op) { return op == Op::Read ? "read" : "write"; }
std::string_view access_name(Access a) { return a == Access::Sequential ? "sequential" : "random"; }
std::string_view api_name(Api api) {
  return api == Api::Sync ? "sync" : api == Api::Async ? "async" : "batch";
}
std::string_view cache_name(Cache c) {
  return c == Cache::Hot ? "hot" : c == Cache::Cold ? "cold" : "partial";
}

Options parse_options(int argc, char** argv) {
  static const option longs[] = {
      {"read", no_argument, nullptr, 'r'},
      {"write", no_argument, nullptr, 'w'},
      {"seq", no_argument, nullptr, kSeq},
      {"random", no_argument, nullptr, kRandom},
      {"io-size", required_argument, nullptr, 'b'},
      {"size", required_argument, nullptr, 's'},
      {"threads", required_argument, nullptr, 't'},
      {"engine-threads", required_argument, nullptr, kEngineThreads},
      {"mem", required_argument, nullptr, 'm'},
      {"register", no_argument, nullptr, kRegister},
      {"direct", no_argument, nullptr, 'd'},
      {"buffered", no_argument, nullptr, kBuffered},
      {"hot", no_argument, nullptr, kHot},
      {"cold", no_argument, nullptr, kCold},
      {"resident", required_argument, nullptr, kResident},
      {"api", required_argument, nullptr, kApi},
      {"streams", required_argument, nullptr, kStreams},
      {"batch", required_argument, nullptr, kBatch},
      {"fsync", no_argument, nullptr, kFsync},
      {"reps", required_argument, nullptr, 'n'},
      {"devices", required_argument, nullptr, kDevices},
      {"multi-gpu", no_argument, nullptr, kMultiGpu},
      {"baselines", required_argument, nullptr, kBaselines},
      {"verify", no_argument, nullptr, kVerify},
      {"file", required_argument, nullptr, 'f'},
      {"file-size", required_argument, nullptr, kFileSize},
      {"create", no_argument, nullptr, kCreate},
      {"overwrite", no_argument, nullptr, kOverwrite},
      {"file-per-device", no_argument, nullptr, kFilePerDevice},
      {"json", required_argument, nullptr, kJson},
      {"progress", no_argument, nullptr, kProgress},
      {"seed", required_argument, nullptr, kSeed},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  Options o;
  int c;
  opterr = 0;  // the errors are reported below, in one line
  while ((c = getopt_long(argc, argv, ":rwb:s:t:m:dn:f:h", longs, nullptr)) != -1) {
    switch (c) {
      case 'r': o.op = Op::Read; break;
      case 'w': o.op = Op::Write; break;
      case kSeq: o.access = Access::Sequential; break;
      case kRandom: o.access = Access::Random; break;
      case 'b': o.io_size = size_arg("--io-size", optarg); break;
      case 's': o.total = size_arg("--size", optarg); break;
      case 't': o.threads = count_arg("--threads", optarg, 1, kMaxThreads); break;
      case kEngineThreads: o.engine_threads = count_arg("--engine-threads", optarg, 0, kMaxEngineThreads); break;
      case 'm': {
        std::string_view m = optarg;
        if (m == "device") o.mem = MemKind::Device;
        else if (m == "pinned") o.mem = MemKind::Pinned;
        else if (m == "pageable") o.mem = MemKind::Pageable;
        else usage_error(fmt::format("--mem: '{}' is not device, pinned or pageable", m));
        break;
      }
      case kRegister: o.registered = true; break;
      case 'd': o.direct = true; break;
      case kBuffered: o.direct = false; break;
      case kHot: o.cache = Cache::Hot; break;
      case kCold: o.cache = Cache::Cold; break;
      case kResident: {
        char* end = nullptr;
        errno = 0;
        o.resident = std::strtod(optarg, &end);
        if (end == optarg || *end != '\0' || errno != 0 || !(o.resident > 0 && o.resident < 1))
          usage_error(fmt::format("--resident: '{}' is not a fraction between 0 and 1 (exclusive)", optarg));
        o.cache = Cache::Partial;
        break;
      }
      case kApi: {
        std::string_view a = optarg;
        if (a == "sync") o.api = Api::Sync;
        else if (a == "async") o.api = Api::Async;
        else if (a == "batch") o.api = Api::Batch;
        else usage_error(fmt::format("--api: '{}' is not sync, async or batch", a));
        break;
      }
      case kStreams: o.streams = count_arg("--streams", optarg, 1, kMaxStreams); break;
      case kBatch: o.batch = count_arg("--batch", optarg, 1, kMaxBatch); break;
      case kFsync: o.fsync = true; break;
      case 'n': o.reps = count_arg("--reps", optarg, 1); break;
      case kDevices: {
        auto list = parse_int_list(optarg);
        if (!list) usage_error(fmt::format("--devices: '{}' is not a list such as 0,1", optarg));
        o.devices = *list;
        break;
      }
      case kMultiGpu: o.all_devices = true; break;
      case kBaselines: o.baselines = baselines_arg(optarg); break;
      case kVerify: o.verify = true; break;
      case 'f': o.file = optarg; break;
      case kFileSize: o.file_size = size_arg("--file-size", optarg); break;
      case kCreate: o.create = true; break;
      case kOverwrite: o.overwrite = true; break;
      case kFilePerDevice: o.file_per_device = true; break;
      case kJson: o.json_path = json_path(optarg); break;
      case kProgress: o.progress = true; break;
      case kSeed: {
        auto v = parse_size(optarg);
        if (!v || std::string_view(optarg).find_first_not_of("0123456789") != std::string_view::npos)
          usage_error(fmt::format("--seed: '{}' is not a number", optarg));
        o.seed = *v;
        break;
      }
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default: usage_error(option_problem(c, argc, argv, longs));
    }
  }
  if (optind < argc) usage_error(fmt::format("unexpected argument '{}'", argv[optind]));
  if (o.io_size == 0) usage_error("--io-size must be > 0");
  if (o.total == 0) usage_error("--size must be > 0");
  // A request larger than the pass is one request of the whole pass.
  if (o.io_size > o.total) o.io_size = o.total;
  // The plan holds every request of a pass in memory, twice over while it is shared out.
  if (const std::uint64_t requests = (o.total + o.io_size - 1) / o.io_size; requests > kMaxRequests)
    usage_error(fmt::format("--size / --io-size is {} requests per pass, more than {}: use a larger --io-size",
                            requests, kMaxRequests));
  if (o.cache == Cache::Partial && o.op == Op::Write) usage_error("--resident applies to reads only");
  // The parts measurement and the partial page-cache state are set up on the one shared file.
  if (o.cache == Cache::Partial && o.file_per_device)
    usage_error("--resident works on one shared file: leave out --file-per-device");
  if (o.direct && (o.io_size % 4096 != 0 || o.total % 4096 != 0))
    usage_error("--direct needs --io-size and --size in multiples of 4 KiB");
  if (!(o.file_per_device && o.all_devices)) check_sizes(o, o.devices.size());
  return o;
}

void check_sizes(Options& o, std::size_t devices) {
  if (!o.file_per_device) {
    if (o.file_size == 0) o.file_size = o.total;
    if (o.access == Access::Sequential && o.file_size < o.total)
      usage_error("--file-size is smaller than --size for a sequential pass");
    if (o.io_size > o.file_size) usage_error("--io-size is larger than the file");
    return;
  }
  const std::uint64_t part = largest_device_part(o, devices);
  if (o.file_size == 0) o.file_size = part;
  if (o.access == Access::Sequential && o.file_size < part)
    usage_error(fmt::format("--file-size is smaller than one GPU's part of --size ({} bytes) for a sequential "
                            "pass with --file-per-device",
                            part));
  if (o.io_size > o.file_size) usage_error("--io-size is larger than each GPU's file");
}

std::string data_file_path(const Options& o, int device) {
  return o.file_per_device ? fmt::format("{}.{}", o.file, device) : o.file;
}

}  // namespace hipfile::tools::io
