// SPDX-License-Identifier: MIT
// hipfile-load PATH...: loads a safetensors checkpoint into GPU memory with
// libhipfile-safetensors and reports the rate against the pinned copy rate of this run.
#include "args.hpp"
#include "ceiling.hpp"
#include "errors.hpp"
#include "fill_pass.hpp"
#include "options.hpp"
#include "page_cache.hpp"
#include "paths.hpp"
#include "placed.hpp"
#include "printable.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "slices.hpp"
#include "stopwatch.hpp"
#include "verify.hpp"

#include <hipfile++/driver.hpp>
#include <hipfile-safetensors/safetensors.hpp>

#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

using namespace hipfile::tools;
using namespace hipfile::tools::load;
namespace sts = hipfile::safetensors;

namespace {

/// A failure that exits 2 (a bad checkpoint) rather than 1.
struct BadCheckpoint {
  std::string what;
};

/// Bad checkpoints exit 2; failed calls, missing GPUs and changed files exit 1.
[[noreturn]] void raise(const sts::Error& e) {
  switch (e.code()) {
    case sts::Errc::io_error:
    case sts::Errc::device_error:
    case sts::Errc::shard_changed:
    case sts::Errc::invalid_argument: throw Failure{e.message()};
    default: throw BadCheckpoint{e.message()};
  }
}

/// --only: the name itself, or a prefix that the name continues at a dot.
bool matches(const std::string& name, const std::string& pattern) {
  if (name.compare(0, pattern.size(), pattern) != 0) return false;
  return name.size() == pattern.size() || pattern.back() == '.' || name[pattern.size()] == '.';
}

std::vector<char> select_only(const sts::Checkpoint& c, const Options& o) {
  std::vector<char> chosen(c.tensors().size(), o.only.empty() ? 1 : 0);
  for (const auto& p : o.only) {
    bool any = false;
    for (std::size_t i = 0; i < c.tensors().size(); ++i)
      if (matches(c.tensors()[i].name, p)) chosen[i] = 1, any = true;
    if (!any) usage_error("hipfile-load", fmt::format("--only '{}' matches no tensor of the checkpoint", p));
  }
  return chosen;
}

/// --devices: the i-th 1/k of the chosen bytes (in checkpoint order) goes to the i-th GPU.
std::vector<int> spread(const sts::Checkpoint& c, const std::vector<char>& chosen, const std::vector<int>& devices) {
  std::uint64_t total = 0, before = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (chosen[i]) total += c.tensors()[i].bytes();
  std::vector<int> out(chosen.size(), devices.front());
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (!chosen[i]) continue;
    const std::size_t k = total ? static_cast<std::size_t>(static_cast<double>(before) / static_cast<double>(total) *
                                                           static_cast<double>(devices.size()))
                                : 0;
    out[i] = devices[std::min(k, devices.size() - 1)];
    before += c.tensors()[i].bytes();
  }
  return out;
}

void check_devices(const std::vector<int>& devices) {
  int count = 0;
  check_hip(hipGetDeviceCount(&count), "hipGetDeviceCount");
  for (int d : devices)
    if (d >= count) throw Failure{fmt::format("GPU {} does not exist ({} found)", d, count)};
}

/// Creates the runtime's context on @p device now, so that its cost is timed apart.
void start_context(int device) {
  check_hip(hipSetDevice(device), fmt::format("hipSetDevice({})", device));
  check_hip(hipFree(nullptr), "hipFree(nullptr) (creating the context)");
}

/// Between passes: the device idle, then a pause (--pause) before the next pass starts.
void rest(int pause_ms) {
  check_hip(hipDeviceSynchronize(), "hipDeviceSynchronize");
  if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
}

void drop_checkpoint(const sts::Checkpoint& c) {
  for (std::size_t i = 0; i < c.shards().size(); ++i) drop_from_cache(c.shard_fd(i), c.shards()[i].path);
}

/// A pass of whole tensors: load() allocates; its memory is kept in @p whole.
sts::Result<Loaded> load_once(const sts::Checkpoint& c, const sts::LoadOptions& lo, sts::LoadedCheckpoint& whole) {
  auto l = sts::load(c, lo);
  if (!l) return hipfile::unexpected(l.error());
  whole = std::move(*l);
  return describe(c, whole);
}

/// A pass of --slice / --rank parts: fill() into the tool's buffer, kept in @p sliced.
sts::Result<Loaded> fill_once(const sts::Checkpoint& c, const std::vector<Part>& parts, int device,
                              const sts::FillOptions& fo, FilledPass& sliced) {
  auto f = fill_pass(c, parts, device, fo);
  if (!f) return hipfile::unexpected(f.error());
  sliced = std::move(*f);
  return sliced.loaded;
}

int run(const Options& o, const std::string& command) {
  Report r;
  check_checkpoint_files(o.paths);
  // The checkpoint before the GPU: a bad one exits 2 wherever it is checked.
  Stopwatch step;
  auto checkpoint = sts::Checkpoint::open(o.paths);
  if (!checkpoint) raise(checkpoint.error());
  r.startup.open_checkpoint = step.seconds();
  const sts::Checkpoint& c = *checkpoint;
  const std::vector<char> chosen = select_only(c, o);
  step.restart();
  check_devices(o.devices);
  start_context(o.devices.front());
  r.startup.context = step.seconds();
  const std::vector<int> device_of = spread(c, chosen, o.devices);

  sts::LoadOptions lo;
  lo.direct = o.direct;
  lo.parallel_reads = static_cast<unsigned>(o.parallel);
  lo.filter = [&](const sts::TensorInfo& t) { return chosen[static_cast<std::size_t>(&t - c.tensors().data())] != 0; };
  lo.placement = [&](const sts::TensorInfo& t) { return device_of[static_cast<std::size_t>(&t - c.tensors().data())]; };
  Progress progress(!o.quiet && (o.progress || isatty(STDERR_FILENO)));
  std::uint64_t reported = 0;
  if (progress.enabled())
    lo.progress = [&](std::uint64_t done, std::uint64_t) { progress.add(done - reported), reported = done; };

  step.restart();
  auto driver = hipfile::Driver::open();  // started before any timed pass
  if (!driver) throw Failure{"hipFileDriverOpen: " + driver.error().message()};
  r.startup.driver_open = step.seconds();
  r.command = command;
  r.checkpoint = &c;
  step.restart();
  r.pinned_gbps = pinned_h2d_gbps(o.devices);
  r.startup.ceiling = step.seconds();

  std::vector<Part> parts;
  if (o.slicing()) {
    auto p = plan_parts(c, chosen, o);
    if (!p) raise(p.error());
    parts = std::move(*p);
  }
  sts::FillOptions fo;
  fo.direct = o.direct;
  fo.parallel_reads = static_cast<unsigned>(o.parallel);
  fo.progress = lo.progress;

  sts::LoadedCheckpoint whole;  // the last pass's memory: load()'s, or the tool's own buffer
  FilledPass sliced;
  Loaded loaded;
  for (int rep = 0; rep < o.reps; ++rep) {
    whole.reset();  // the previous pass's memory, before the next is allocated
    sliced = FilledPass{};
    if (rep > 0) rest(o.pause_ms);
    if (o.cold) drop_checkpoint(c);
    reported = 0;
    progress.start(fmt::format("loading {}", o.paths[0]), c.bytes());
    Stopwatch clock;
    auto l = o.slicing() ? fill_once(c, parts, o.devices.front(), fo, sliced) : load_once(c, lo, whole);
    const double seconds = clock.seconds();
    progress.finish();
    if (!l) raise(l.error());
    loaded = std::move(*l);
    r.passes.push_back(Pass{seconds, loaded.stats});
  }
  r.loaded = &loaded;

  if (const char* spec = std::getenv("HIPFILE_LOAD_CORRUPT")) corrupt_for_tests(loaded, spec);
  int status = 0;
  if (o.verify) {
    const std::string diff = verify(c, loaded);
    r.verify = diff.empty() ? "passed" : "FAILED: " + diff;
    if (!diff.empty()) {
      fmt::print(stderr, "hipfile-load: verify: {}\n", printable(diff));
      return 1;
    }
  }
  if (!o.write_back.empty()) {
    sts::WriteOptions wo;
    // An index with an empty weight_map has no shard: its copy is a valid checkpoint of no
    // tensors ("{}" padded), as safetensors writes for an empty dict.
    if (!c.shards().empty()) wo.metadata = c.shards().front().metadata;
    Stopwatch clock;
    if (auto w = sts::write(o.write_back, sts::tensors_of(whole), wo); !w) raise(w.error());
    r.write_seconds = clock.seconds();
  }
  if (o.json) print_json(r, o);
  else print_text(r, o);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  int rc = 1;
  try {
    rc = run(o, command);
  } catch (const BadCheckpoint& b) {
    fmt::print(stderr, "hipfile-load: {}\n", printable(b.what));  // names from the file, maybe hostile
    rc = 2;
  } catch (const Failure& f) {
    fmt::print(stderr, "hipfile-load: {}\n", printable(f.what));
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "hipfile-load: out of host memory\n");
  }
  return rc;
}
