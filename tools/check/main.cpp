// SPDX-License-Identifier: MIT
// hipfile-check [DIR]: what a user runs first. Reports the platform, GPUs, fastpaths, and the
// file system of DIR, then proves hipFile works there with a real write/read/compare.
#include "args.hpp"
#include "errors.hpp"
#include "fastpaths.hpp"
#include "filesystem.hpp"
#include "io_probe.hpp"
#include "platform.hpp"

#include <getopt.h>
#include <hipfile/hipfile.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

using namespace hipfile::tools;
using namespace hipfile::tools::check;

namespace {

constexpr const char* kUsage = R"(usage: hipfile-check [-q] [-g N] [DIR]
Checks that hipFile can do I/O in DIR (default: the current directory) on this machine.
  -g, --device N   GPU to test with (default 0)
  -q, --quiet      print only the verdict line
  -h, --help
Exit status: 0 hipFile works in DIR, 1 it does not (see the FAIL lines), 2 usage.
)";

bool quiet = false;

template <class... T>
void say(fmt::format_string<T...> f, T&&... args) {
  if (!quiet) fmt::print(f, std::forward<T>(args)...);
}

}  // namespace

int main(int argc, char** argv) {
  static const option longs[] = {{"quiet", no_argument, nullptr, 'q'},
                                 {"device", required_argument, nullptr, 'g'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  int device = 0;
  int c;
  while ((c = getopt_long(argc, argv, "qg:h", longs, nullptr)) != -1) {
    switch (c) {
      case 'q': quiet = true; break;
      case 'g': {
        auto v = parse_count(optarg);
        if (!v) {
          fmt::print(stderr, "hipfile-check: --device: '{}' is not a GPU number\n", optarg);
          return 2;
        }
        device = *v;
        break;
      }
      case 'h': std::fputs(kUsage, stdout); return 0;
      default: fmt::print(stderr, "Try 'hipfile-check --help'.\n"); return 2;
    }
  }
  if (argc - optind > 1) {
    fmt::print(stderr, "hipfile-check: expected at most one directory\nTry 'hipfile-check --help'.\n");
    return 2;
  }
  std::string dir = optind < argc ? argv[optind] : ".";

  unsigned major = 0, minor = 0, patch = 0;
  (void)hipFileGetVersion(&major, &minor, &patch);
  PlatformInfo p = query_platform();
  say("hipfile-check: hipfile {}.{}.{}\n", major, minor, patch);
  say("  platform        {} (HIP runtime {}{})\n", p.platform, p.runtime,
      p.driver_version ? fmt::format(", driver {}", decode_runtime_version(p.driver_version)) : "");
  say("  host            {}, {}, {} CPUs\n", p.hostname, p.kernel, p.cpus);
  if (p.gpus.empty()) say("  GPUs            none: {}\n", p.device_error);
  for (const GpuInfo& g : p.gpus)
    say("  {:<15} {}, {} memory, PCI {}\n", fmt::format("GPU{}", g.index), g.name, format_size(g.memory), g.pci_bus_id);

  say("fastpaths (GPU-direct; without one, hipfile uses its parallel pinned-staging engine)\n");
  for (const Finding& f : probe_fastpaths(p.platform))
    say("  {:<26} {:<4} {}\n", f.name, f.available ? "yes" : "no", f.detail);
  // What the library itself decided at driver open, next to what this tool found: the verdict
  // follows the library, which is what serves the I/O below.
  const Finding decision = library_decision();
  say("  {:<26} {:<4} {}\n", decision.name, decision.available ? "yes" : "no", decision.detail);
  const bool fastpath = decision.available;

  FsInfo fs = probe_filesystem(dir);
  if (!fs.error.empty()) {
    fmt::print(stderr, "hipfile-check: {}\n", fs.error);
    fmt::print("verdict: FAIL: cannot examine {}\n", dir);
    return 1;
  }
  say("directory {}\n", fs.path);
  say("  file system     {} (statfs 0x{:x}); mount {} type {} from {} ({})\n", fs.type, fs.magic, fs.mount_point,
      fs.mount_fstype, fs.mount_source, fs.mount_options);
  say("  O_DIRECT        {}: {}", fs.odirect ? "yes" : "no", fs.odirect_detail);
  if (fs.dio_mem_align != 0)
    say("; statx DIO alignment: memory {} B, file offset {} B", fs.dio_mem_align, fs.dio_offset_align);
  else if (fs.odirect)
    say("; statx reports no DIO alignment (kernel < 6.1 or file system without it)");
  say("\n");

  // A size that is not a multiple of 4 KiB, so unaligned O_DIRECT heads and tails are exercised.
  constexpr std::size_t kSize = (3u << 20) + 4099;
  std::vector<ProbeResult> results;
  bool have_gpu = device < static_cast<int>(p.gpus.size());
  say("I/O through hipfile ({} in {}{})\n", format_size(kSize), fs.path,
      have_gpu ? fmt::format(", GPU {}", device) : "");
  for (MemKind kind : {MemKind::Device, MemKind::Pageable})
    for (bool direct : {false, true}) {
      ProbeResult r;
      if (!have_gpu && kind == MemKind::Device) {
        r.name = fmt::format("device memory, {}", direct ? "O_DIRECT" : "buffered");
        r.ran = true;
        r.detail = p.gpus.empty() ? "no GPU: " + p.device_error : fmt::format("GPU {} does not exist", device);
      } else {
        r = probe_io(fs.path, kind, direct, have_gpu ? device : 0, kSize);
      }
      say("  {:<26} {:<4} {}\n", r.name, !r.ran ? "skip" : r.ok ? "ok" : "FAIL", r.detail);
      results.push_back(std::move(r));
    }
  if (hipFileUseCount() > 0) (void)hipFileDriverClose();

  int failed = 0;
  for (const ProbeResult& r : results) failed += r.ran && !r.ok;
  if (failed != 0) {
    fmt::print("verdict: FAIL: {} of {} I/O checks failed in {}\n", failed, results.size(), fs.path);
    return 1;
  }
  fmt::print("verdict: OK: hipfile reads and writes correctly in {} ({}{}), {}\n", fs.path, fs.type,
             fs.odirect ? ", O_DIRECT" : ", buffered only",
             fastpath ? "GPU-direct fastpath available" : "through the pinned-staging engine (no fastpath)");
  return 0;
}
