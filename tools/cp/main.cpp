// SPDX-License-Identifier: MIT
// hipfile-cp SRC DST: copies a file through GPU memory with hipFileRead/hipFileWrite (the job
// of upstream's aiscp), for any size, preserving the bytes exactly.
#include "args.hpp"
#include "errors.hpp"
#include "memory.hpp"
#include "progress.hpp"

#include <fcntl.h>
#include <getopt.h>
#include <hipfile/hipfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

using namespace hipfile::tools;

namespace {

constexpr const char* kUsage = R"(usage: hipfile-cp [options] SRC DST
Copies SRC to DST through GPU memory: hipFileRead into a device buffer, hipFileWrite out of it.
  -c, --chunk SIZE     bytes per read/write (default 256M); k/M/G suffixes
  -g, --device N       GPU whose memory carries the data (default 0)
      --buffered       never open with O_DIRECT (default: O_DIRECT where the file system allows)
      --sync           fdatasync DST before exiting
      --progress       show the progress line even when stderr is not a terminal
  -q, --quiet          no progress line
  -h, --help
Exit status: 0 copied, 1 failure (the message names the call and the reason), 2 usage.
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

[[noreturn]] void usage_error(const std::string& message) {
  fmt::print(stderr, "hipfile-cp: {}\nTry 'hipfile-cp --help'.\n", message);
  std::exit(2);
}

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
  while ((c = getopt_long(argc, argv, "c:g:qh", longs, nullptr)) != -1) {
    switch (c) {
      case 'c': {
        auto v = parse_size(optarg);
        if (!v || *v == 0) usage_error(fmt::format("--chunk: '{}' is not a size > 0", optarg));
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
      default: usage_error("unknown option");
    }
  }
  if (argc - optind != 2) usage_error("expected SRC and DST");
  o.src = argv[optind];
  o.dst = argv[optind + 1];
  return o;
}

// Opens with O_DIRECT where the file system takes it, buffered otherwise (tmpfs refuses it
// with EINVAL); the library serves unaligned heads and tails of O_DIRECT files itself.
int open_file(const std::string& path, int flags, bool try_direct, bool& direct) {
  direct = false;
  if (try_direct) {
    int fd = open(path.c_str(), flags | O_DIRECT | O_CLOEXEC, 0644);
    if (fd >= 0) return direct = true, fd;
    if (errno != EINVAL) throw Failure{fmt::format("cannot open {}: {}", path, std::strerror(errno))};
  }
  int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw Failure{fmt::format("cannot open {}: {}", path, std::strerror(errno))};
  return fd;
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

int run(const Options& o) {
  struct stat sst {};
  if (stat(o.src.c_str(), &sst) != 0) throw Failure{fmt::format("cannot stat {}: {}", o.src, std::strerror(errno))};
  if (S_ISDIR(sst.st_mode)) throw Failure{fmt::format("{} is a directory", o.src)};
  struct stat dst_st {};
  if (stat(o.dst.c_str(), &dst_st) == 0 && dst_st.st_dev == sst.st_dev && dst_st.st_ino == sst.st_ino)
    throw Failure{fmt::format("{} and {} are the same file", o.src, o.dst)};

  bool src_direct = false, dst_direct = false;
  RegisteredFile src(open_file(o.src, O_RDONLY, !o.buffered, src_direct), o.src);
  RegisteredFile dst(open_file(o.dst, O_WRONLY | O_CREAT | O_TRUNC, !o.buffered, dst_direct), o.dst);
  auto size = static_cast<std::uint64_t>(sst.st_size);

  int count = 0;
  check_hip(hipGetDeviceCount(&count), "hipGetDeviceCount");
  if (o.device >= count) throw Failure{fmt::format("GPU {} does not exist ({} found)", o.device, count)};
  std::uint64_t chunk = std::max<std::uint64_t>(4096, std::min(o.chunk, (size + 4095) & ~std::uint64_t{4095}));
  Memory buffer(MemKind::Device, chunk, o.device);
  check_status(hipFileBufRegister(buffer.data(), buffer.size(), 0), "hipFileBufRegister");

  Progress progress(!o.quiet && (o.progress || isatty(STDERR_FILENO)));
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
    fmt::print(stderr, "hipfile-cp: {}\n", f.what);
  }
  // Registrations are gone by now; closing the driver releases its threads and staging memory.
  if (hipFileUseCount() > 0) (void)hipFileDriverClose();
  return rc;
}
