// SPDX-License-Identifier: MIT
// HIPFILE_WAIT: how engine workers wait for their copies. Each mode moves the file's bytes,
// and hip-cpu's call counts show which runtime calls each one waits with.
#include "../c_api/helpers.hpp"

#ifdef __HIP_PLATFORM_CPU__
#include <hip/hip_cpu.h>

#include <cstdlib>
#include <string>

using namespace hipfile::test;

TEST_CASE("Every wait mode reads and writes the file's bytes, waiting the way it says", "[wait]") {
  const std::string mode = GENERATE("spin", "poll", "block");
  CAPTURE(mode);
  ClosedDriver guard;
  ::setenv("HIPFILE_WAIT", mode.c_str(), 1);
  ::setenv("HIPFILE_THREADS", "4", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "256k", 1);
  ::setenv("HIPFILE_INLINE_THRESHOLD", "0", 1);  // every request on the workers
  ::setenv("HIPFILE_MAPPED_READS", "0", 1);
  const std::size_t n = (6u << 20) + 12345;
  TempFile f(n, 91);
  {
    Registered r(f.path(), O_RDWR);
    DeviceMem mem(n);
    hipcpuResetCallCounts();
    REQUIRE(hipFileRead(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
    CHECK(to_host(mem.get(), n) == pattern(n, 91));
    const auto queries = hipcpuCallCount("hipEventQuery");
    const auto event_waits = hipcpuCallCount("hipEventSynchronize");
    if (mode == "poll") {
      CHECK(queries > 0);
      CHECK(event_waits == 0);  // polling never parks in the runtime
      // The request's one wait for the NULL stream (the workers' streams do not follow it),
      // and no lane's.
      CHECK(hipcpuCallCount("hipStreamSynchronize") == 1);
    } else {
      CHECK(queries == 0);
      CHECK(event_waits > 0);
    }
    to_device(mem.get(), pattern(n, 92));
    REQUIRE(hipFileWrite(r.handle, mem.get(), n, 0, 0) == static_cast<ssize_t>(n));
  }
  for (const char* v : {"HIPFILE_WAIT", "HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_INLINE_THRESHOLD",
                        "HIPFILE_MAPPED_READS"})
    ::unsetenv(v);
  CHECK(read_file(f.path()) == pattern(n, 92));
}
#endif
