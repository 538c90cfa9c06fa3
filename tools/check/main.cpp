// SPDX-License-Identifier: MIT
// hipfile-check [DIR]: what a user runs first. Reports the platform, GPUs, fastpaths, and the
// file system of DIR, then proves hipFile works there with a real write/read/compare.
#include "args.hpp"
#include "errors.hpp"
#include "fastpaths.hpp"
#include "filesystem.hpp"
#include "io_probe.hpp"
#include "platform.hpp"
#include "printable.hpp"

#include <getopt.h>
#include <hipfile/hipfile.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

using namespace hipfile::tools;
using namespace hipfile::tools::check;

namespace {

// The manual page: -h/--help prints it. Keep it true to main() and the probes.
constexpr const char* kUsage = R"(NAME
    hipfile-check - check that hipFile can do I/O on this machine, in a directory

SYNOPSIS
    hipfile-check [OPTION]... [DIR]

DESCRIPTION
    Run it first. It reports, in order:
    platform    which HIP implementation this build uses (amd, nvidia, or cpu = hip-cpu), the
                HIP runtime and driver versions, the host, and every GPU (name, memory, PCI
                bus id).
    fastpaths   whether a GPU-direct path could serve I/O and, if not, why not: kernel PCI
                P2PDMA (CONFIG_PCI_P2PDMA in the kernel config), AMD AIS (libamdhip64 exports
                hipAmdFileRead/Write), NVIDIA GDS (libcufile.so.0 loads and the nvidia-fs
                module is present); then the library's own decision at driver open, which the
                verdict follows. Without a fastpath the library uses its parallel
                pinned-staging engine, which is the normal case.
    directory   DIR's file system (statfs type; mount point, type, source and options), whether
                open(O_DIRECT) works there (a probe file is created and removed), and the
                O_DIRECT alignment statx(STATX_DIOALIGN) reports (Linux 6.1 and later).
    I/O         for device memory and pageable host memory, buffered and O_DIRECT: a 3 MiB +
                4099 byte file in DIR is written with hipFileWrite, read back with hipFileRead
                into a cleared buffer, compared, and checked on disk with pread; then removed.
                O_DIRECT cases are skipped (not failed) where the file system refuses O_DIRECT.
    The last line, on stdout, is the verdict: "verdict: OK: ..." or "verdict: FAIL: ...".
    Without a GPU the device-memory checks fail.

OPTIONS
    DIR
        The directory to examine and write the probe files in (default: the current
        directory). It must be writable.
    -g, --device N
        The GPU to test with (default 0). A GPU that does not exist fails the device-memory
        checks.
    -q, --quiet
        Print only the verdict line.
    -h, --help
        Print this manual and exit 0.

ENVIRONMENT
    HIPFILE_CUFILE_LIBRARY
        The libcufile the library (and this report) tries first; any build then considers it.
    HIPFILE_FORCE_COMPAT_MODE
        Makes the library use no fastpath (its decision then reads "none").
    HIPFILE_FORCE_ODIRECT, HIPFILE_THREADS, HIPFILE_CHUNK_SIZE
        Change how the library serves the I/O checks (doc/configuration.md).
    HIPFILE_LOG_LEVEL
        The library's log level (default WARN).

EXIT STATUS
    0   hipFile reads and writes correctly in DIR (verdict OK)
    1   it does not: an I/O check failed (the FAIL lines say which and why), DIR cannot be
        examined, or there is no GPU
    2   usage error: an unknown option, a malformed --device, more than one DIR

EXAMPLES
    hipfile-check
        Check the current directory with GPU 0.
    hipfile-check -g 1 /mnt/nvme
        Check a mounted NVMe file system with GPU 1.
    hipfile-check -q /scratch || echo "hipFile is not usable in /scratch"
        Only the verdict, for scripts.

SEE ALSO
    hipfile-io(1), hipfile-cp(1), hipfile-stats(1), doc/tools.md, doc/fastpaths.md
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
  opterr = 0;  // the errors are reported below, in one line
  while ((c = getopt_long(argc, argv, ":qg:h", longs, nullptr)) != -1) {
    switch (c) {
      case 'q': quiet = true; break;
      case 'g': {
        auto v = parse_count(optarg);
        if (!v) usage_error("hipfile-check", fmt::format("--device: '{}' is not a GPU number", optarg));
        device = *v;
        break;
      }
      case 'h': std::fputs(kUsage, stdout); return 0;
      default: usage_error("hipfile-check", option_problem(c, argc, argv, longs));
    }
  }
  if (argc - optind > 1)
    usage_error("hipfile-check", fmt::format("one directory at most ('{}' is a second)", argv[optind + 1]));
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
    fmt::print(stderr, "hipfile-check: {}\n", printable(fs.error));
    fmt::print("verdict: FAIL: cannot examine {}\n", printable(dir));
    return 1;
  }
  say("directory {}\n", printable(fs.path));  // DIR may hold escape sequences
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
    fmt::print("verdict: FAIL: {} of {} I/O checks failed in {}\n", failed, results.size(), printable(fs.path));
    return 1;
  }
  fmt::print("verdict: OK: hipfile reads and writes correctly in {} ({}{}), {}\n", printable(fs.path), fs.type,
             fs.odirect ? ", O_DIRECT" : ", buffered only",
             fastpath ? "GPU-direct fastpath available" : "through the pinned-staging engine (no fastpath)");
  return 0;
}
