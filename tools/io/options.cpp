// SPDX-License-Identifier: MIT
#include "options.hpp"

#include "args.hpp"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <string_view>

namespace hipfile::tools::io {
namespace {

constexpr const char* kUsage = R"(usage: hipfile-io [options]
Measures hipFile I/O and, in the same run, the ceilings and baselines it is compared with.

What to measure
  -r, --read / -w, --write   direction (default read)
      --seq / --random       access pattern (default sequential; random offsets are 4 KiB aligned)
  -b, --io-size SIZE         bytes per request (default 16M); k/M/G suffixes
  -s, --size SIZE            bytes moved per measured pass (default 1G)
  -t, --threads N            the tool's I/O threads per GPU (default 1)
      --engine-threads N     set HIPFILE_THREADS=N (the library's engine threads) before the driver opens
  -m, --mem KIND             device | pinned | pageable (default device)
      --register             hipFileBufRegister the buffers (default: unregistered)
  -d, --direct / --buffered  open the file with O_DIRECT (default buffered)
      --hot / --cold         page cache: pre-read the file once (default), or fdatasync +
                             posix_fadvise(DONTNEED) before every measured pass
      --api MODE             sync | async | batch (default sync)
      --streams N            async: streams per thread (default 4)
      --batch N              batch: entries per batch (default 128)
      --fsync                writes: include one fdatasync in each timed pass
  -n, --reps N               measured passes per measurement (default 3; best and median reported)
      --devices LIST         GPUs to use, e.g. 0,1: each reads a disjoint part of the range
      --multi-gpu            every GPU the runtime reports
      --baselines LIST       all | none | comma list of copy,raw,naive,serial,hand (default all)
      --verify               after the timed passes, check every byte of every request
File
  -f, --file PATH            data file (default ./hipfile-io.dat); created with the verifiable
                             pattern when missing or too small
      --file-size SIZE       file size (default: --size)
      --create               (re)create the file with the pattern even if it exists
Output
      --json FILE            also write the results as JSON
      --progress             show the progress line even when stderr is not a terminal
  -h, --help
Exit status: 0 success, 1 failure (I/O error, verification mismatch, unsupported mode), 2 usage.
)";

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "hipfile-io: {}\nTry 'hipfile-io --help'.\n", message);
  std::exit(2);
}

std::uint64_t size_arg(const char* name, const char* text) {
  auto v = parse_size(text);
  if (!v) usage_error(fmt::format("{}: '{}' is not a size (e.g. 4096, 64k, 16M, 8G)", name, text));
  return *v;
}

int count_arg(const char* name, const char* text, int min) {
  auto v = parse_count(text);
  if (!v || *v < min) usage_error(fmt::format("{}: '{}' is not a number >= {}", name, text, min));
  return *v;
}

Baselines baselines_arg(std::string_view text) {
  Baselines b{false, false, false, false, false};
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
    else usage_error(fmt::format("--baselines: unknown '{}' (copy, raw, naive, serial, hand, all, none)", item));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return b;
}

enum LongOnly {
  kSeq = 256, kRandom, kEngineThreads, kRegister, kBuffered, kHot, kCold, kApi, kStreams, kBatch, kFsync,
  kDevices, kMultiGpu, kBaselines, kVerify, kFileSize, kCreate, kJson, kProgress, kSeed
};

}  // namespace

std::string_view op_name(Op op) { return op == Op::Read ? "read" : "write"; }
std::string_view access_name(Access a) { return a == Access::Sequential ? "sequential" : "random"; }
std::string_view api_name(Api api) {
  return api == Api::Sync ? "sync" : api == Api::Async ? "async" : "batch";
}
std::string_view cache_name(Cache c) { return c == Cache::Hot ? "hot" : "cold"; }

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
      {"json", required_argument, nullptr, kJson},
      {"progress", no_argument, nullptr, kProgress},
      {"seed", required_argument, nullptr, kSeed},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  Options o;
  int c;
  while ((c = getopt_long(argc, argv, "rwb:s:t:m:dn:f:h", longs, nullptr)) != -1) {
    switch (c) {
      case 'r': o.op = Op::Read; break;
      case 'w': o.op = Op::Write; break;
      case kSeq: o.access = Access::Sequential; break;
      case kRandom: o.access = Access::Random; break;
      case 'b': o.io_size = size_arg("--io-size", optarg); break;
      case 's': o.total = size_arg("--size", optarg); break;
      case 't': o.threads = count_arg("--threads", optarg, 1); break;
      case kEngineThreads: o.engine_threads = count_arg("--engine-threads", optarg, 0); break;
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
      case kApi: {
        std::string_view a = optarg;
        if (a == "sync") o.api = Api::Sync;
        else if (a == "async") o.api = Api::Async;
        else if (a == "batch") o.api = Api::Batch;
        else usage_error(fmt::format("--api: '{}' is not sync, async or batch", a));
        break;
      }
      case kStreams: o.streams = count_arg("--streams", optarg, 1); break;
      case kBatch: o.batch = count_arg("--batch", optarg, 1); break;
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
      case kJson: o.json_path = optarg; break;
      case kProgress: o.progress = true; break;
      case kSeed: o.seed = size_arg("--seed", optarg); break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default: usage_error("unknown option");
    }
  }
  if (optind < argc) usage_error(fmt::format("unexpected argument '{}'", argv[optind]));
  if (o.io_size == 0) usage_error("--io-size must be > 0");
  if (o.total == 0) usage_error("--size must be > 0");
  if (o.file_size == 0) o.file_size = o.total;
  // A request larger than the pass is one request of the whole pass.
  if (o.io_size > o.total) o.io_size = o.total;
  if (o.access == Access::Sequential && o.file_size < o.total)
    usage_error("--file-size is smaller than --size for a sequential pass");
  if (o.io_size > o.file_size) usage_error("--io-size is larger than the file");
  if (o.direct && (o.io_size % 4096 != 0 || o.total % 4096 != 0))
    usage_error("--direct needs --io-size and --size in multiples of 4 KiB");
  return o;
}

}  // namespace hipfile::tools::io
