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
#include "printable.hpp"
#include "report.hpp"
#include "scratch.hpp"
#include "stopwatch.hpp"

#include <fcntl.h>
#include <hipfile/hipfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <new>
#include <optional>
#include <stdexcept>
#include <system_error>
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

// What a pass starts from: the data files and, with --resident, the ranges put into the page
// cache (of the one shared file: --resident is refused with --file-per-device).
struct CacheSetup {
  const std::vector<DataFile>& files;
  std::vector<ByteRange> heads;
  unsigned helpers = 1;
};

void sync_files(const std::vector<DataFile>& files) {
  for (const DataFile& f : files)
    if (fdatasync(f.fd()) != 0) throw Failure{fmt::format("fdatasync {}: {}", f.path(), std::strerror(errno))};
}

// Puts the files into the pass's starting state. Writes always start with no dirty backlog, so
// one pass's writeback is not charged to the next.
void prepare_pass(const Options& o, const CacheSetup& c) {
  if (o.cache == Cache::Cold || o.cache == Cache::Partial) {
    for (const DataFile& f : c.files) drop_from_cache(f.fd(), f.path());
    if (o.cache == Cache::Partial) load_ranges_into_cache(c.files.front().path(), c.heads, c.helpers);
  } else if (o.op == Op::Write) {
    sync_files(c.files);
  }
}

// Inside the timed window with --fsync, so buffered writes are charged their writeback.
double timed_fsync(const Options& o, const std::vector<DataFile>& files) {
  if (!o.fsync || o.op != Op::Write) return 0;
  Stopwatch clock;
  sync_files(files);
  return clock.seconds();
}

// The bytes of a file that a hot run puts into the page cache: the range its requests address
// (sequential) or the whole file (random requests spread over it).
std::uint64_t cached_range(const Options& o, const std::vector<Worker>& workers, std::size_t file) {
  return o.access == Access::Sequential ? file_extent(workers, file) : o.file_size;
}

// Why the run would write to the existing regular file at `path`, or "" when it would only read
// it (a missing file is the run's own; a file that is not regular is refused later).
std::string write_reason(const Options& o, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  if (o.op == Op::Write) return "a write run (-w) would overwrite it";
  if (o.create) return "--create would rewrite it with the pattern";
  if (static_cast<std::uint64_t>(st.st_size) < o.file_size)
    return fmt::format("it is smaller than --file-size ({} bytes) and would be rewritten with the pattern",
                       o.file_size);
  return "";
}

// A file the user already has is theirs: written only when --overwrite says so, and every file
// is checked before the first is touched.
void refuse_unasked_writes(const Options& o, const std::vector<std::string>& paths) {
  if (o.overwrite) return;
  for (const std::string& path : paths)
    if (std::string why = write_reason(o, path); !why.empty())
      throw Failure{fmt::format("--file: {} exists and {}; pass --overwrite to allow writing to it", path, why)};
}

std::vector<std::string> data_file_paths(const Options& o, const std::vector<int>& devices) {
  std::vector<std::string> paths;
  if (o.file_per_device)
    for (int d : devices) paths.push_back(data_file_path(o, d));
  else
    paths.push_back(o.file);
  return paths;
}

// One data file per GPU with --file-per-device (each created like the single file), else one.
std::vector<DataFile> open_data_files(const Options& o, const std::vector<std::string>& paths, unsigned helpers) {
  refuse_unasked_writes(o, paths);
  for (const std::string& path : paths) {
    if (ensure_data_file(path, o.file_size, o.create, helpers))
      fmt::print(stderr, "hipfile-io: wrote {} of pattern to {}\n", format_size(o.file_size), path);
    if (o.verify && o.op == Op::Read && !looks_like_pattern(path, o.file_size))
      throw Failure{fmt::format("{} does not hold hipfile-io's pattern (a write run or another program changed it); "
                                "run again with --create --overwrite",
                                path)};
  }
  std::vector<DataFile> files;
  files.reserve(paths.size());
  for (const std::string& path : paths) files.emplace_back(path, o.direct, o.op == Op::Write);
  return files;
}

void record(Measurement& m, const PassTiming& t, double extra) {
  m.seconds.push_back(t.seconds + extra);
  std::vector<double> slots = t.slot_seconds;
  for (double& s : slots) s += extra;
  m.slot_seconds.push_back(std::move(slots));
}

// All GPUs copy at once, so the ceiling of several is what the host carries to all of them
// together (their shared memory bandwidth and root complex), not a sum of GPUs measured alone.
void measure_copies(Report& r, const Options& o) {
  std::uint64_t bytes = std::min<std::uint64_t>(o.total, 4ull << 30);
  std::uint64_t block = std::min<std::uint64_t>(bytes, 256u << 20);
  for (Measurement* m : {&r.h2d, &r.d2h}) {
    m->slot_bytes.assign(r.devices.size(), bytes);
    m->bytes = bytes * r.devices.size();
  }
  CopyBench copies(r.devices, bytes, block);
  for (int pass = 0; pass < o.reps; ++pass)
    for (Measurement* m : {&r.h2d, &r.d2h}) {
      const double cpu0 = process_cpu_seconds();
      record(*m, copies.run(m == &r.h2d), 0);
      m->cpu_seconds.push_back(process_cpu_seconds() - cpu0);
    }
}

// --json FILE, created or truncated; opened without blocking, so a FIFO that nobody reads is an
// error (ENXIO) rather than a wait without end, and one with a reader (/dev/stdout) works.
std::FILE* open_json_output(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    const bool no_reader = errno == ENXIO;
    throw Failure{fmt::format("cannot write {}: {}", path, no_reader ? "a FIFO that no process reads" : std::strerror(errno))};
  }
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* out = ::fdopen(fd, "w");
  if (out == nullptr) {
    ::close(fd);
    throw Failure{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  }
  return out;
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
  // With --multi-gpu the number of files and their sizes were not known to parse_options.
  if (o.file_per_device && o.all_devices) check_sizes(o, r.devices.size());
  std::size_t slots = r.devices.size();
  unsigned helpers = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  std::vector<Worker> workers = make_plan(o, r.devices);
  // No --file: the run's own file in a temporary directory, removed when the run ends.
  std::optional<ScratchDir> scratch;
  if (o.file.empty()) o.file = scratch.emplace().dir() + "/hipfile-io.dat";
  const std::vector<std::string> paths = data_file_paths(o, r.devices);
  if (scratch) scratch->will_hold(paths);
  const std::vector<DataFile> files = open_data_files(o, paths, helpers);
  for (const DataFile& f : files) r.files.push_back(f.path());

  check_status(hipFileDriverOpen(), "hipFileDriverOpen");
  const CacheSetup cache{files,
                         o.cache == Cache::Partial ? resident_ranges(workers, o.resident) : std::vector<ByteRange>{},
                         helpers};
  std::vector<std::uint64_t> ranges;  // per file, what a hot run caches
  for (std::size_t f = 0; f < files.size(); ++f) ranges.push_back(cached_range(o, workers, f));
  if (o.cache == Cache::Hot)
    for (std::size_t f = 0; f < files.size(); ++f) load_into_cache(files[f].path(), ranges[f], helpers);
  if (o.cache == Cache::Partial) prepare_pass(o, cache);
  if (o.cache != Cache::Cold) {
    // Of all files together, weighted by the bytes each range holds.
    double cached = 0, all = 0;
    for (std::size_t f = 0; f < files.size(); ++f) {
      cached += static_cast<double>(ranges[f]) * resident_fraction(files[f].fd(), ranges[f]);
      all += static_cast<double>(ranges[f]);
    }
    r.page_cache_resident = all > 0 ? cached / all : 0;
  }

  Progress progress(o.progress || isatty(STDERR_FILENO));
  r.hipfile = {"hipfile", fmt::format("hipfile {} {}", api_name(o.api), op_name(o.op))};
  const std::string at_once = fmt::format(", {} GPUs at once", r.devices.size());
  r.h2d = {"pinned_h2d", r.devices.size() > 1 ? "pinned H2D copy ceiling" + at_once : "pinned host->device hipMemcpy (ceiling)"};
  r.d2h = {"pinned_d2h", r.devices.size() > 1 ? "pinned D2H copy ceiling" + at_once : "pinned device->host hipMemcpy (ceiling)"};
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
    HipfileBench bench(o, workers, slots, files, progress);
    std::optional<RawBench> raw;
    std::optional<NaiveBench> naive;
    std::optional<RawBench> hand;
    if (o.baselines.raw) raw.emplace(o, workers, slots, progress);
    if (o.baselines.naive && o.mem == MemKind::Device) naive.emplace(o, workers, slots, progress);
    if (o.baselines.hand && o.mem == MemKind::Device) hand.emplace(o, workers, slots, progress, true);
    bool serial = o.baselines.serial && o.api != Api::Sync;
    std::optional<StreamBench> stream;
    if (o.baselines.stream && o.op == Op::Read) stream.emplace(o, workers, files, progress);
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
        double f = timed_fsync(o, files);
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
      if (raw) timed("raw", r.raw, [&] { return raw->run(files); });
      if (naive) timed("naive", r.naive, [&] { return whole(naive->run(files)); });
      if (hand) timed("by-hand", r.hand, [&] { return hand->run(files); });
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
        sync_files(files);
        bench.check_written();
      }
      r.verify = "passed";
    }
  }
  (void)hipFileDriverClose();

  print_table(r);
  if (!o.json_path.empty()) {
    std::FILE* out = o.json_path == "-" ? stdout : open_json_output(o.json_path);
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
    fmt::print(stderr, "\nhipfile-io: error: {}\n", printable(f.what));  // paths may hold escape sequences
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "\nhipfile-io: error: out of host memory (try a smaller --io-size, --threads or --size)\n");
  } catch (const std::length_error&) {
    fmt::print(stderr, "\nhipfile-io: error: a buffer too large for this machine (try a smaller --io-size or --size)\n");
  } catch (const std::system_error& e) {  // std::thread: --threads times the GPUs beyond the process limit
    fmt::print(stderr, "\nhipfile-io: error: cannot start a thread: {} (try fewer --threads)\n", e.code().message());
  }
  return 1;
}
