// SPDX-License-Identifier: MIT
#include "io_probe.hpp"

#include "errors.hpp"
#include "pattern.hpp"
#include "stopwatch.hpp"

#include <fcntl.h>
#include <hipfile/hipfile.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <vector>

namespace hipfile::tools::check {
namespace {

void run_probe(ProbeResult& result, const std::string& dir, MemKind kind, bool direct, int device,
               std::size_t size) {
  std::string path = dir + "/.hipfile-check-io-XXXXXX";
  int tmp = mkstemp(path.data());
  if (tmp < 0) throw Failure{fmt::format("cannot create a file in {}: {}", dir, std::strerror(errno))};
  close(tmp);
  struct Cleanup {
    std::string path;
    int fd = -1;
    hipFileHandle_t handle = nullptr;
    ~Cleanup() {
      if (handle != nullptr) hipFileHandleDeregister(handle);
      if (fd >= 0) close(fd);
      unlink(path.c_str());
    }
  } file{path};
  file.fd = open(path.c_str(), O_RDWR | O_CLOEXEC | (direct ? O_DIRECT : 0));
  if (file.fd < 0) {
    if (direct && errno == EINVAL) {
      result.detail = "skipped: the file system refuses O_DIRECT";
      return;
    }
    throw Failure{fmt::format("open: {}", std::strerror(errno))};
  }
  result.ran = true;
  hipFileDescr_t descr{};
  descr.type = hipFileHandleTypeOpaqueFD;
  descr.handle.fd = file.fd;
  check_status(hipFileHandleRegister(&file.handle, &descr), "hipFileHandleRegister");

  Memory buffer(kind, size, device);
  std::vector<unsigned char> host(size);
  fill_pattern(host.data(), 0, size);
  buffer.upload(0, host.data(), size);

  Stopwatch clock;
  ssize_t n = hipFileWrite(file.handle, buffer.data(), size, 0, 0);
  int saved = errno;
  if (n < 0) throw Failure{"hipFileWrite: " + io_error_text(n, saved)};
  if (static_cast<std::size_t>(n) != size) throw Failure{fmt::format("hipFileWrite wrote {} of {} bytes", n, size)};

  std::fill(host.begin(), host.end(), 0);
  buffer.upload(0, host.data(), size);
  n = hipFileRead(file.handle, buffer.data(), size, 0, 0);
  saved = errno;
  if (n < 0) throw Failure{"hipFileRead: " + io_error_text(n, saved)};
  if (static_cast<std::size_t>(n) != size) throw Failure{fmt::format("hipFileRead read {} of {} bytes", n, size)};
  result.seconds = clock.seconds();

  buffer.download(host.data(), 0, size);
  if (auto bad = check_pattern(host.data(), 0, size))
    throw Failure{fmt::format("data read back differs at byte {}", *bad)};
  // What reached the file, checked without the library.
  std::vector<unsigned char> disk(size);
  int plain = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ssize_t got = plain >= 0 ? pread(plain, disk.data(), size, 0) : -1;
  if (plain >= 0) close(plain);
  if (got != static_cast<ssize_t>(size)) throw Failure{"the file does not hold what was written (short)"};
  if (auto bad = check_pattern(disk.data(), 0, size))
    throw Failure{fmt::format("the file differs from what was written at byte {}", *bad)};
  result.ok = true;
  result.detail = fmt::format("wrote, read back and compared {} bytes", size);
}

}  // namespace

ProbeResult probe_io(const std::string& dir, MemKind kind, bool direct, int device, std::size_t size) {
  ProbeResult result;
  result.name = fmt::format("{} memory, {}", mem_kind_name(kind), direct ? "O_DIRECT" : "buffered");
  try {
    run_probe(result, dir, kind, direct, device, size);
  } catch (const Failure& f) {
    result.ran = true;
    result.ok = false;
    result.detail = f.what;
  }
  return result;
}

}  // namespace hipfile::tools::check
