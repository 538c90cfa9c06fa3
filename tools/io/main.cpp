// SPDX-License-Identifier: MIT
// hipfile-io: measures hipFile reads or writes and, in the same run, the ceilings and baselines
// its figures are ratios of (see doc/tools.md).
#include "args.hpp"
#include "baselines.hpp"
#include "data_file.hpp"
#include "errors.hpp"
#include "hipfile_bench.hpp"
#include "options.hpp"
#include "page_cache.hpp"
#include "parts_bench.hpp"
#include "plan.hpp"
#include "report.hpp"
#include "stopwatch.hpp"

#include <hipfile/hipfile.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <thread>

using namespace hipfile::tools;
using namespace hipfile::tools::io;

namespace {

std::vector<int> resolve_devices(const Options& o) {
  int count = 0;
  hipError_t e = hipGetDeviceCount(&count);
  if (e != hipSuccess) throw Failure{"no GPU: hipGetDeviceCount: " + hip_text(e)};
  if (o.all_devices) {
    std::vector<int> all;
    for (int d = 0; d < count; ++d) all.push_back(d);
    if (all.empty()) throw Failure{"no GPU: the runtime reports no devices"};
    return all;
  }
  for (int d : o.devices)
    if (d >= count) throw Failure{fmt::format("--devices: GPU {} does not exist ({} found)", d, count)};
  std::vector<int> sorted = o.devices;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw Failure{"--devices: a GPU is listed twice"};
  return o.devices;
}

// What a pass starts from: the data file and, with --resident, the ranges put into the page cache.
struct CacheSetup {
  int fd = -1;
  std::vector<ByteRange> heads;
  unsigned helpers = 1;
};

// Puts the file into the pass's starting state. Writes always start with no dirty backlog, so
// one pass's writeback is not charged to the next.
void prepare_pass(const Options& o, const CacheSetup& c) {
  if (o.cache == Cache::Cold || o.cache == Cache::Partial) {
    drop_from_cache(c.fd, o.file);
    if (o.cache == Cache::Partial) load_ranges_into_cache(o.file, c.heads, c.helpers);
  } else if (o.op == Op::Write && fdatasync(c.fd) != 0) {
    throw Failure{fmt::format("fdatasync {}: {}", o.file, std::strerror(errno))};
  }
}

// Inside the timed window with --fsync, so buffered writes are charged their writeback.
double timed_fsync(const Options& o, int fd) {
  if (!o.fsync || o.op != Op::Write) return 0;
  Stopwatch clock;
  if (fdatasync(fd) != 0) throw Failure{fmt::format("fdatasync {}: {}", o.file, std::strerror(errno))};
  return clock.seconds();
}

void record(Measurement& m, const PassTiming& t, double extra) {
  m.seconds.push_back(t.seconds + extra);
  std::vector<double> slots = t.slot_seconds;
  for (double& s : slots) s += extra;
  m.slot_seconds.push_back(std::move(slots));
}

// Copies are measured one GPU at a time; the aggregate ceiling is the sum of the GPUs' rates.
void measure_copies(Report& r, const Options& o) {
  std::uint64_t bytes = std::min<std::uint64_t>(o.total, 4ull << 30);
  std::uint64_t block = std::min<std::uint64_t>(bytes, 256u << 20);
  for (Measurement* m : {&r.h2d, &r.d2h}) {
    m->slot_bytes.assign(r.devices.size(), bytes);
    m->bytes = bytes * r.devices.size();
  }
  for (int pass = 0; pass < o.reps; ++pass)
    for (Measurement* m : {&r.h2d, &r.d2h}) {
      std::vector<double> slot_seconds;
      double rate = 0;
      const double cpu0 = process_cpu_seconds();
      for (int d : r.devices) {
        double s = time_pinned_copy(d, m == &r.h2d, bytes, block);
        slot_seconds.push_back(s);
        rate += static_cast<double>(bytes) / s;
      }
      m->seconds.push_back(static_cast<double>(m->bytes) / rate);
      m->slot_seconds.push_back(std::move(slot_seconds));
      m->cpu_seconds.push_back(process_cpu_seconds() - cpu0);
    }
}

std::string joined_command(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

int run(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  // The library reads HIPFILE_THREADS when its driver opens, which happens below.
  if (o.engine_threads >= 0) setenv("HIPFILE_THREADS", std::to_string(o.engine_threads).c_str(), 1);

  Report r;
  r.options = &o;
  r.command = joined_command(argc, argv);
  r.platform = query_platform();
  const char* env_threads = std::getenv("HIPFILE_THREADS");
  r.engine_threads = env_threads != nullptr ? env_threads : "default";
  r.devices = resolve_devices(o);
  std::size_t slots = r.devices.size();
  unsigned helpers = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);

  if (ensure_data_file(o.file, o.file_size, o.create, helpers))
    fmt::print(stderr, "hipfile-io: wrote {} of pattern to {}\n", format_size(o.file_size), o.file);
  if (o.verify && o.op == Op::Read && !looks_like_pattern(o.file, o.file_size))
    throw Failure{fmt::format("{} does not hold hipfile-io's pattern (a write run or another program changed it); "
                              "run again with --create",
                              o.file)};

  check_status(hipFileDriverOpen(), "hipFileDriverOpen");
  std::vector<Worker> workers = make_plan(o, r.devices);
  std::uint64_t range = o.access == Access::Sequential ? o.total : o.file_size;
  int fd = open_data_file(o.file, o.direct);
  const CacheSetup cache{fd, o.cache == Cache::Partial ? resident_ranges(workers, o.resident) : std::vector<ByteRange>{},
                         helpers};
  if (o.cache == Cache::Hot) load_into_cache(o.file, range, helpers);
  if (o.cache == Cache::Partial) prepare_pass(o, cache);
  r.page_cache_resident = o.cache != Cache::Cold ? resident_fraction(fd, range) : -1;

  Progress progress(o.progress || isatty(STDERR_FILENO));
  r.hipfile = {"hipfile", fmt::format("hipfile {} {}", api_name(o.api), op_name(o.op))};
  r.h2d = {"pinned_h2d", "pinned host->device hipMemcpy (ceiling)"};
  r.d2h = {"pinned_d2h", "pinned device->host hipMemcpy (ceiling)"};
  r.raw = {"raw", fmt::format("raw parallel {} (pinned host)", o.op == Op::Read ? "pread" : "pwrite")};
  r.naive = {"naive", o.op == Op::Read ? "naive pread + hipMemcpy (serial)" : "naive hipMemcpy + pwrite (serial)"};
  r.serial = {"sync_serial", fmt::format("sync hipFile{} loop (serial)", o.op == Op::Read ? "Read" : "Write")};
  r.hand = {"by_hand", fmt::format("by hand: {} + hipMemcpy, {} thr", o.op == Op::Read ? "pread" : "pwrite",
                                    o.threads * static_cast<int>(r.devices.size()))};
  r.stream = {"stream", "one sequential buffered reader"};
  r.parts = {"parts", "hipfile, cached and uncached parts alone"};
  r.hipfile.bytes = r.raw.bytes = r.naive.bytes = r.serial.bytes = r.hand.bytes = r.stream.bytes = r.parts.bytes =
      o.total;
  const std::uint64_t ops = total_requests(workers);
  r.hipfile.ops = r.raw.ops = r.naive.ops = r.serial.ops = r.hand.ops = r.parts.ops = ops;
  r.hipfile.slot_bytes = r.raw.slot_bytes = r.hand.slot_bytes = bytes_per_slot(workers, slots);

  {
    HipfileBench bench(o, workers, slots, fd, progress);
    std::optional<RawBench> raw;
    std::optional<NaiveBench> naive;
    std::optional<RawBench> hand;
    if (o.baselines.raw) raw.emplace(o, workers, slots, progress);
    if (o.baselines.naive && o.mem == MemKind::Device) naive.emplace(o, workers, slots, progress);
    if (o.baselines.hand && o.mem == MemKind::Device) hand.emplace(o, workers, slots, progress, true);
    bool serial = o.baselines.serial && o.api != Api::Sync;
    std::optional<StreamBench> stream;
    if (o.baselines.stream && o.op == Op::Read) stream.emplace(o, workers, progress);
    std::optional<PartsBench> parts;
    if (o.baselines.parts && o.cache == Cache::Partial) parts.emplace(o, workers, slots, progress);
    if (o.baselines.copy) measure_copies(r, o);

    // Measurements alternate within each repetition, so drift in the machine affects all alike.
    for (int pass = 1; pass <= o.reps; ++pass) {
      std::string of = fmt::format("{}/{}", pass, o.reps);
      // One timed pass of a parallel measurement: page-cache state prepared, fsync included.
      auto timed = [&](const char* name, Measurement& m, const auto& run_pass) {
        prepare_pass(o, cache);
        progress.start(fmt::format("{} pass {}", name, of), o.total);
        const double cpu0 = process_cpu_seconds();
        PassTiming t = run_pass();
        double f = timed_fsync(o, fd);
        m.cpu_seconds.push_back(process_cpu_seconds() - cpu0);
        progress.finish();
        record(m, t, f);
      };
      // A measurement run on one thread (naive, serial) times itself: a pass with no per-GPU part.
      auto whole = [](double seconds) {
        PassTiming t;
        t.seconds = seconds;
        return t;
      };
      timed("hipfile", r.hipfile, [&] { return bench.run(false); });
      if (raw) timed("raw", r.raw, [&] { return raw->run(fd); });
      if (naive) timed("naive", r.naive, [&] { return whole(naive->run(fd)); });
      if (hand) timed("by-hand", r.hand, [&] { return hand->run(fd); });
      if (stream) timed("stream", r.stream, [&] { return stream->run(); });
      if (serial) timed("serial", r.serial, [&] { return whole(bench.run_serial()); });
      if (parts) {
        prepare_pass(o, cache);
        progress.start(fmt::format("parts pass {}", of), o.total);
        PartsBench::Pass p = parts->run([&] { prepare_pass(o, cache); });
        progress.finish();
        record(r.parts, whole(p.seconds), 0);
        r.parts.cpu_seconds.push_back(p.cpu_seconds);
      }
    }

    if (o.verify) {
      prepare_pass(o, cache);
      progress.start("verify", o.total);
      bench.run(true);
      progress.finish();
      if (o.op == Op::Write) {
        if (fdatasync(fd) != 0) throw Failure{fmt::format("fdatasync {}: {}", o.file, std::strerror(errno))};
        bench.check_written(o.file);
      }
      r.verify = "passed";
    }
  }
  close(fd);
  (void)hipFileDriverClose();

  print_table(r);
  if (!o.json_path.empty()) {
    std::FILE* out = o.json_path == "-" ? stdout : std::fopen(o.json_path.c_str(), "w");
    if (out == nullptr) throw Failure{fmt::format("cannot write {}: {}", o.json_path, std::strerror(errno))};
    std::string text = to_json(r);
    bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (out != stdout) ok = std::fclose(out) == 0 && ok;
    if (!ok) throw Failure{fmt::format("writing {} failed", o.json_path)};
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const Failure& f) {
    fmt::print(stderr, "\nhipfile-io: error: {}\n", f.what);
    return 1;
  }
}
