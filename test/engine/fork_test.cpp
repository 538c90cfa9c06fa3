// SPDX-License-Identifier: MIT
// Library threads belong to the driver instance: the engine's workers and the executor of async
// and batch I/O are started by an open and joined by its last close. So a process that closed
// the driver has no library thread left, and a child forked after that close opens the driver
// again and runs every path (workers, executor) with threads of its own.
//
// platform=cpu only (test/engine/meson.build): CUDA and ROCm do not support using the runtime in
// a child forked after the parent initialised it, whatever the library does.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hip/hip_runtime_api.h>  // defines __HIP_PLATFORM_CPU__ on hip-cpu

#ifdef __HIP_PLATFORM_CPU__

#include <vector>

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

}  // namespace

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
