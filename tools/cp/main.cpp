// SPDX-License-Identifier: MIT
// hipfile-cp SRC DST: copies a file through GPU memory with hipFileRead/hipFileWrite (the job
// of upstream's aiscp), for any size, preserving the bytes exactly.
#include "args.hpp"
#include "errors.hpp"
#include "file_type.hpp"
#include "memory.hpp"
#include "printable.hpp"
#include "progress.hpp"

#include <fcntl.h>
#include <getopt.h>
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

using namespace hipfile::tools;

namespace {

// The manual page: -h/--help prints it. Keep it true to parse() and run().
constexpr const char* kUsage = R"(NAME
    hipfile-cp - copy a file through GPU memory with hipFileRead and hipFileWrite

SYNOPSIS
    hipfile-cp [OPTION]... SRC DST

DESCRIPTION
    Copies the regular file SRC to DST through a registered device buffer: hipFileRead of up
    to --chunk bytes from SRC into the buffer, then hipFileWrite of them to DST at the same
    offset, until SRC's size (taken when the copy starts) has been copied (upstream's aiscp).
    Any size works: 0 bytes, sizes that are not multiples of 4 KiB, files larger than the
    chunk or than 2 GiB.
    Both files are opened with O_DIRECT where the file system allows it and buffered where it
    refuses (EINVAL, as tmpfs does); the library serves unaligned heads and tails. DST is
    created (mode 0644 less the umask) or truncated only once the arguments are valid, SRC
    exists and the GPU exists, and at the end it is cut to exactly SRC's size.
    SRC must be a regular file, and DST a regular file or a name that does not exist yet: a
    directory, a FIFO (which would block the copy) or a device is refused, and so is SRC and
    DST being the same file, before DST is touched. The copy is not read back: compare with
    cmp(1) if you need proof. After a failure DST may hold part of the data.

OPTIONS
    SIZE takes a byte count with an optional binary suffix k, M, G or T (any case, optionally
    followed by i and/or B): 4096, 64k, 1M, 256MiB. N is a decimal integer.

    -c, --chunk SIZE
        Bytes per read and write, which is also the size of the device buffer (default 256M).
        Must be > 0; it is rounded up to a multiple of 4 KiB, and a chunk larger than SRC is
        shrunk to SRC's size rounded up to 4 KiB (at least 4 KiB). While the progress line is
        shown, a chunk is also at most a sixteenth of SRC (at least 16M), so that the line
        moves when one chunk would hold the whole file.
    -g, --device N
        The GPU whose memory carries the data (default 0).
    --buffered
        Never open with O_DIRECT (default: O_DIRECT where the file system allows it).
    --sync
        fdatasync DST before exiting (default off).
    --progress
        Show the progress line even when stderr is not a terminal (default: shown when stderr
        is a terminal). It counts the bytes whose write has completed and is rewritten every
        half second.
    -q, --quiet
        Never show the progress line.
    -h, --help
        Print this manual and exit 0.

ENVIRONMENT
    HIPFILE_THREADS, HIPFILE_CHUNK_SIZE, HIPFILE_STAGING_DEPTH
        The library's staging engine: its worker threads (0 or unset: automatic), the bytes
        it stages at a time, the pinned slots per worker (doc/configuration.md).
    HIPFILE_FORCE_ODIRECT
        Makes the library use O_DIRECT even for a file opened buffered.
    HIPFILE_DURABLE_WRITES
        Makes the library fdatasync once at the end of every write call.
    HIPFILE_LOG_LEVEL
        The library's log level (default WARN).

EXIT STATUS
    0   SRC was copied to DST
    1   failure; the message names the call and the reason (SRC missing, SRC or DST not a
        regular file, SRC and DST the same file, a file that cannot be opened, a GPU that does
        not exist, out of memory, a
        failed hipFileRead or hipFileWrite with its offset, SRC shrinking during the copy)
    2   usage error: an unknown option, a missing or malformed value, not exactly two paths;
        DST is not touched

EXAMPLES
    hipfile-cp /mnt/nvme/model.bin /mnt/scratch/model.bin
        Copy through GPU 0 with O_DIRECT on both sides where possible.
    hipfile-cp -g 1 -c 64M --sync --progress big.dat copy.dat
        Copy through GPU 1 in 64 MiB chunks, showing progress, flushing DST at the end.
    hipfile-cp --buffered -q a.bin b.bin && cmp a.bin b.bin
        A buffered copy, then proof that the bytes match.

SEE ALSO
    hipfile-check(1), hipfile-io(1), hipfile-stats(1), cp(1), cmp(1), doc/tools.md
)";

struct Options {
  std::uint64_t chunk = 256u << 20;
  int device = 0;
  bool buffered = false;
  bool sync = false;
  bool progress = false;
  bool quiet = false;
  std::string src, dst;
};

[[noreturn]] void usage_error(const std::string& message) { hipfile::tools::usage_error("hipfile-cp", message); }

Options parse(int argc, char** argv) {
  enum { kBuffered = 256, kSync, kProgress };
  static const option longs[] = {
      {"chunk", required_argument, nullptr, 'c'}, {"device", required_argument, nullptr, 'g'},
      {"buffered", no_argument, nullptr, kBuffered}, {"sync", no_argument, nullptr, kSync},
      {"progress", no_argument, nullptr, kProgress}, {"quiet", no_argument, nullptr, 'q'},
      {"help", no_argument, nullptr, 'h'}, {nullptr, 0, nullptr, 0},
  };
  Options o;
  int c;
  opterr = 0;  // the errors are reported below, in one line
  while ((c = getopt_long(argc, argv, ":c:g:qh", longs, nullptr)) != -1) {
    switch (c) {
      case 'c': {
        auto v = parse_size(optarg);
        if (!v || *v == 0) usage_error(fmt::format("--chunk: '{}' is not a size > 0", optarg));
        if (*v > (std::uint64_t{1} << 40)) usage_error(fmt::format("--chunk: '{}' is more than 1T", optarg));
        // Keep the file offsets of the middle chunks O_DIRECT-aligned.
        o.chunk = (*v + 4095) & ~std::uint64_t{4095};
        break;
      }
      case 'g': {
        auto v = parse_count(optarg);
        if (!v) usage_error(fmt::format("--device: '{}' is not a GPU number", optarg));
        o.device = *v;
        break;
      }
      case kBuffered: o.buffered = true; break;
      case kSync: o.sync = true; break;
      case kProgress: o.progress = true; break;
      case 'q': o.quiet = true; break;
      case 'h': std::fputs(kUsage, stdout); std::exit(0);
      default: usage_error(option_problem(c, argc, argv, longs));
    }
  }
  if (argc - optind < 2) usage_error(argc == optind ? "missing SRC and DST" : "missing DST (after SRC)");
  if (argc - optind > 2) usage_error(fmt::format("one path too many: '{}' (expected SRC and DST)", argv[optind + 2]));
  o.src = argv[optind];
  o.dst = argv[optind + 1];
  return o;
}

// Opens with O_DIRECT where the file system takes it, buffered otherwise (tmpfs refuses it
// with EINVAL); the library serves unaligned heads and tails of O_DIRECT files itself. Never
// blocks on a FIFO put in place after run()'s checks: only a regular file is kept open.
int open_file(const std::string& path, int flags, bool try_direct, bool& direct) {
  direct = false;
  std::string problem;
  if (try_direct) {
    int fd = open_regular(path, flags | O_DIRECT, 0644, problem);
    if (fd >= 0) return direct = true, fd;
    if (errno != EINVAL) throw Failure{problem};
  }
  int fd = open_regular(path, flags, 0644, problem);
  if (fd < 0) throw Failure{problem};
  return fd;
}

// SRC must be a regular file (a FIFO would block the open, a device has no size to copy); DST
// must be one or not exist yet, and must not be SRC. Checked before DST is created or truncated.
std::uint64_t check_paths(const Options& o) {
  struct stat sst {};
  if (stat(o.src.c_str(), &sst) != 0) throw Failure{fmt::format("cannot stat {}: {}", o.src, std::strerror(errno))};
  if (auto kind = non_regular_kind(sst.st_mode); !kind.empty())
    throw Failure{fmt::format("{} is {}, not a regular file", o.src, kind)};
  struct stat dst_st {};
  if (stat(o.dst.c_str(), &dst_st) != 0) return static_cast<std::uint64_t>(sst.st_size);
  if (dst_st.st_dev == sst.st_dev && dst_st.st_ino == sst.st_ino)
    throw Failure{fmt::format("{} and {} are the same file", o.src, o.dst)};
  if (auto kind = non_regular_kind(dst_st.st_mode); !kind.empty())
    throw Failure{fmt::format("{} is {}, not a regular file", o.dst, kind)};
  return static_cast<std::uint64_t>(sst.st_size);
}

// Owns an fd and its hipFile registration; deregisters before closing, as the API requires.
struct RegisteredFile {
  int fd = -1;
  hipFileHandle_t handle = nullptr;
  RegisteredFile(int f, const std::string& path) : fd(f) {
    hipFileDescr_t descr{};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileError_t st = hipFileHandleRegister(&handle, &descr);
    if (st.err != hipFileSuccess) {
      close(fd);
      throw Failure{fmt::format("hipFileHandleRegister({}): {}", path, status_text(st))};
    }
  }
  ~RegisteredFile() {
    if (handle != nullptr) hipFileHandleDeregister(handle);
    if (fd >= 0) close(fd);
  }
  RegisteredFile(const RegisteredFile&) = delete;
  RegisteredFile& operator=(const RegisteredFile&) = delete;
};

// The bytes of one hipFileRead and hipFileWrite, and of the device buffer: --chunk, at most SRC's
// size rounded up to 4 KiB. The progress line counts bytes as their write completes, so with it
// shown a call moves at most a sixteenth of the copy (at least 16 MiB): with one chunk holding
// the whole file it would otherwise sit at 0 % until the end. Only copies under 4 GiB get
// smaller calls, and each still spans several of the engine's staged chunks; without the line
// the calls are exactly as before.
std::uint64_t call_bytes(std::uint64_t chunk, std::uint64_t size, bool progress) {
  constexpr std::uint64_t kPage = 4096, kMinPiece = 16u << 20;
  const auto round_up = [](std::uint64_t n) { return (n + kPage - 1) & ~(kPage - 1); };
  if (progress) chunk = std::min(chunk, std::max(kMinPiece, round_up(size / 16)));
  return std::max(kPage, std::min(chunk, round_up(size)));
}

int run(const Options& o) {
  const std::uint64_t size = check_paths(o);

  // The GPU is checked before DST is opened, so a wrong --device leaves DST as it was.
  int count = 0;
  check_hip(hipGetDeviceCount(&count), "hipGetDeviceCount");
  if (o.device >= count) throw Failure{fmt::format("GPU {} does not exist ({} found)", o.device, count)};

  bool src_direct = false, dst_direct = false;
  RegisteredFile src(open_file(o.src, O_RDONLY, !o.buffered, src_direct), o.src);
  RegisteredFile dst(open_file(o.dst, O_WRONLY | O_CREAT | O_TRUNC, !o.buffered, dst_direct), o.dst);
  Progress progress(!o.quiet && (o.progress || isatty(STDERR_FILENO)));
  const std::uint64_t chunk = call_bytes(o.chunk, size, progress.enabled());
  Memory buffer(MemKind::Device, chunk, o.device);
  check_status(hipFileBufRegister(buffer.data(), buffer.size(), 0), "hipFileBufRegister");

  progress.start(fmt::format("{} -> {}", o.src, o.dst), size);
  std::string error;
  std::uint64_t off = 0;
  while (off < size && error.empty()) {
    std::uint64_t want = std::min(chunk, size - off);
    ssize_t got = hipFileRead(src.handle, buffer.data(), want, static_cast<hoff_t>(off), 0);
    int saved = errno;
    if (got < 0) {
      error = fmt::format("reading {} at offset {}: {}", o.src, off, io_error_text(got, saved));
      break;
    }
    if (got == 0) {
      error = fmt::format("{} ended at {} bytes, expected {} (did it shrink while copying?)", o.src, off, size);
      break;
    }
    for (std::uint64_t done = 0; done < static_cast<std::uint64_t>(got);) {
      ssize_t put = hipFileWrite(dst.handle, buffer.data(), static_cast<std::uint64_t>(got) - done,
                                 static_cast<hoff_t>(off + done), static_cast<hoff_t>(done));
      saved = errno;
      if (put <= 0) {
        error = fmt::format("writing {} at offset {}: {}", o.dst, off + done,
                            put == 0 ? "no progress" : io_error_text(put, saved));
        break;
      }
      done += static_cast<std::uint64_t>(put);
    }
    off += static_cast<std::uint64_t>(got);
    progress.add(static_cast<std::uint64_t>(got));
  }
  progress.finish();
  (void)hipFileBufDeregister(buffer.data());
  if (!error.empty()) throw Failure{error};
  // The exact size, whatever the last write covered (and a 0-byte source yields a 0-byte copy).
  if (ftruncate(dst.fd, static_cast<off_t>(size)) != 0)
    throw Failure{fmt::format("ftruncate {}: {}", o.dst, std::strerror(errno))};
  if (o.sync && fdatasync(dst.fd) != 0) throw Failure{fmt::format("fdatasync {}: {}", o.dst, std::strerror(errno))};
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  int rc = 1;
  try {
    rc = run(o);
  } catch (const Failure& f) {
    fmt::print(stderr, "hipfile-cp: {}\n", printable(f.what));  // paths may hold escape sequences
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "hipfile-cp: out of host memory\n");
  }
  // Registrations are gone by now; closing the driver releases its threads and staging memory.
  if (hipFileUseCount() > 0) (void)hipFileDriverClose();
  return rc;
}
