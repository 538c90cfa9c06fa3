// SPDX-License-Identifier: MIT
// Library threads belong to the driver instance: the engine's workers and the executor of async
// and batch I/O are started by an open and joined by its last close. So a process that closed
// the driver has no library thread left, and a child forked after that close opens the driver
// again and runs every path (workers, executor) with threads of its own. A child forked with
// the driver open gets an instance of its own (the driver's atfork handlers), whose workers and
// executor start in the child, so it reads too; the parent kills a child that hangs.
//
// platform=cpu only (test/engine/meson.build): CUDA and ROCm do not support using the runtime in
// a child forked after the parent initialised it, whatever the library does.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>  // defines __HIP_PLATFORM_CPU__ on hip-cpu

#ifdef __HIP_PLATFORM_CPU__

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <hipfile++/hipfile.hpp>

#include "../c_api/helpers.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

// One large read (the engine's workers) and, with `async`, one async read (the executor) of `f`,
// checked byte for byte. Returns what went wrong, or "" when nothing did.
std::string read_both_ways(const TempFile& f, std::size_t n, std::uint64_t seed, bool async = true) {
  if (hipFileDriverOpen().err != hipFileSuccess) return "open";
  std::string failed;
  {
    const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
    hipFileHandle_t fh = nullptr;
    DeviceMem mem(n);
    hipStream_t stream = nullptr;
    if (fd < 0 || register_fd(fd, &fh).err != hipFileSuccess) failed = "register";
    if (failed.empty() && (hipFileRead(fh, mem.get(), n, 0, 0) != static_cast<ssize_t>(n) ||
                           to_host(mem.get(), n) != pattern(n, seed)))
      failed = "read";
    (void)hipMemset(mem.get(), 0, n);
    std::size_t size = n;
    hoff_t file_offset = 0, buffer_offset = 0;
    ssize_t bytes = -1;
    if (async && failed.empty() && (hipStreamCreate(&stream) != hipSuccess ||
                           hipFileReadAsync(fh, mem.get(), &size, &file_offset, &buffer_offset, &bytes, stream).err !=
                               hipFileSuccess ||
                           hipStreamSynchronize(stream) != hipSuccess || bytes != static_cast<ssize_t>(n) ||
                           to_host(mem.get(), n) != pattern(n, seed)))
      failed = "async read";
    if (stream) (void)hipStreamDestroy(stream);
    if (fh) hipFileHandleDeregister(fh);
    if (fd >= 0) ::close(fd);
  }
  if (hipFileDriverClose().err != hipFileSuccess && failed.empty()) failed = "close";
  return failed;
}

// One large read (the workers) and one async read of the same size (the executor) through
// `fh`, checked byte for byte. Returns what went wrong, or "" when nothing did.
std::string read_through(hipFileHandle_t fh, std::size_t n, std::uint64_t seed) {
  DeviceMem mem(n);
  if (hipFileRead(fh, mem.get(), n, 0, 0) != static_cast<ssize_t>(n) || to_host(mem.get(), n) != pattern(n, seed))
    return "read";
  (void)hipMemset(mem.get(), 0, n);
  hipStream_t stream = nullptr;
  if (hipStreamCreate(&stream) != hipSuccess) return "stream";
  std::size_t size = n;
  hoff_t file_offset = 0, buffer_offset = 0;
  ssize_t bytes = -1;
  std::string failed;
  if (hipFileReadAsync(fh, mem.get(), &size, &file_offset, &buffer_offset, &bytes, stream).err != hipFileSuccess ||
      hipStreamSynchronize(stream) != hipSuccess || bytes != static_cast<ssize_t>(n) ||
      to_host(mem.get(), n) != pattern(n, seed))
    failed = "async read";
  (void)hipStreamDestroy(stream);
  return failed;
}

// In a child forked with the driver open: reads through the handle registered by the parent and
// through one registered here, then the closes. Its exit status is 0 when all of it worked.
int child_with_open_driver(hipFileHandle_t inherited, const TempFile& f, std::size_t n, std::uint64_t seed) {
  if (!read_through(inherited, n, seed).empty()) return 2;
  const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  hipFileHandle_t mine = nullptr;
  if (fd < 0 || register_fd(fd, &mine).err != hipFileSuccess) return 3;
  const bool read = read_through(mine, n, seed).empty();
  hipFileHandleDeregister(mine);
  ::close(fd);
  if (!read) return 4;
  hipFileHandleDeregister(inherited);
  if (hipFileDriverClose().err != hipFileSuccess || hipFileUseCount() != 0) return 5;
  return 0;
}

// The same through the C++ layer, with a File opened in the child: a sync read and an AsyncIo.
int child_through_cxx(const TempFile& f, std::size_t n, std::uint64_t seed) {
  hipfile::Result<hipfile::File> file = hipfile::File::open(f.path(), O_RDONLY);
  if (!file) return 6;
  DeviceMem mem(n);
  const std::span<std::byte> dst(mem.bytes(), n);
  hipfile::Result<std::size_t> got = file->read(dst, 0);
  if (!got || *got != n || to_host(mem.get(), n) != pattern(n, seed)) return 7;
  (void)hipMemset(mem.get(), 0, n);
  hipStream_t stream = nullptr;
  if (hipStreamCreate(&stream) != hipSuccess) return 8;
  int failed = 0;
  {
    hipfile::Result<hipfile::AsyncIo> op = hipfile::AsyncIo::read(*file, dst, 0, stream);
    hipfile::Result<std::size_t> bytes = op ? op->get() : hipfile::Result<std::size_t>(0);
    if (!op || !bytes || *bytes != n || to_host(mem.get(), n) != pattern(n, seed)) failed = 9;
  }
  (void)hipStreamDestroy(stream);
  return failed;
}

// Waits for `child` up to `deadline`; a child still running then is killed. Its wait status.
int wait_or_kill(pid_t child, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) return status;
    if (done < 0 || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  (void)::waitpid(child, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("A child forked with the driver open reads with threads of its own", "[fork]") {
  ClosedDriver guard;
  const std::size_t n = 64 * kMiB;  // the workers take it
  TempFile f(n, 7);
  REQUIRE(hipFileDriverOpen().err == hipFileSuccess);
  const int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  hipFileHandle_t fh = nullptr;
  REQUIRE(register_fd(fd, &fh).err == hipFileSuccess);
  // The parent's workers and executor run now: the child inherits an engine whose threads it
  // lacks, which before the fork handlers made its first large read wait for ever.
  REQUIRE(read_through(fh, n, 7).empty());
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The C++ layer first, while the driver is still open from the parent's open.
    const int cxx = child_through_cxx(f, n, 7);
    ::_exit(cxx != 0 ? cxx : child_with_open_driver(fh, f, n, 7));
  }
  const int status = wait_or_kill(child, std::chrono::seconds(60));
  CAPTURE(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  REQUIRE(WIFEXITED(status));  // killed at the deadline: the child hung
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(read_through(fh, n, 7).empty());  // and the parent's engine still works
  hipFileHandleDeregister(fh);
  ::close(fd);
  CHECK(hipFileDriverClose().err == hipFileSuccess);
}

TEST_CASE("The last close joins the engine's and the executor's threads", "[fork][threads]") {
  ClosedDriver guard;
  const std::size_t n = 64 * kMiB;  // well past the inline threshold: the workers take it
  TempFile f(n, 5);
  // Without async I/O first: the runtime's own threads (its NULL stream's) exist after it, the
  // executor's not yet.
  REQUIRE(read_both_ways(f, n, 5, false).empty());
  const int before = thread_count();
  REQUIRE(read_both_ways(f, n, 5).empty());
  // Before the executor belonged to the instance its threads (8 to 16) outlived every close.
  CHECK(thread_count() == before);
}

TEST_CASE("A child forked after the last close opens the driver again and reads", "[fork]") {
  ClosedDriver guard;
  const std::size_t n = 64 * kMiB;
  TempFile f(n, 6);
  REQUIRE(read_both_ways(f, n, 6).empty());
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A child that hangs (an executor whose threads stayed in the parent) is killed, and fails.
    ::alarm(60);
    const std::string failed = read_both_ways(f, n, 6);
    ::_exit(failed.empty() ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CAPTURE(WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  REQUIRE(read_both_ways(f, n, 6).empty());  // and the parent still works
}

#endif
