// SPDX-License-Identifier: MIT
// Setters while async operations wait on their streams. A setter whose successor keeps the
// engine frees no staging memory, so it must not wait for the async operations in flight: a
// program may queue the work that lets its stream reach them only after the setter returns.
// A setter that waited would never return; the alarm then ends the test as a failure.
#include "common.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <vector>

using namespace hipfile::test;

namespace {
constexpr std::size_t kMiB = 1u << 20;
constexpr unsigned kDeadlineSeconds = 60;
}  // namespace

TEST_CASE("setters that keep the engine return while an async read waits on its stream") {
  DriverScope drv;
  const std::size_t n = kMiB;
  TempFile f(n, 31);
  OpenFile of(f.path());
  DeviceMem dev(n);
  // A read first: the engine and its staging memory exist, as in a program already reading.
  REQUIRE(hipFileRead(of.fh, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));
  fill_device(dev.get(), 0, n);
  Stream s;
  Gate gate;
  gate.close_on(s);  // the stream reaches the read only after the gate opens
  std::size_t size = n;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = -77;
  HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &bytes, s));
  ::alarm(kDeadlineSeconds);
  // Each setter retires the instance before it; from the second on, an idle one is torn down.
  HF_OK(hipFileDriverSetPollMode(true, 4));
  HF_OK(hipFileDriverSetPollMode(false, 4));
  HF_OK(hipFileDriverSetMaxCacheSize(4096));
  HF_OK(hipFileDriverSetMaxCacheSize(8192));
  gate.release();  // what the program queues after the setters
  HIP_CHECK(hipStreamSynchronize(s));
  ::alarm(0);
  REQUIRE(bytes == static_cast<ssize_t>(n));
  CHECK(same(to_host(dev.get(), n), pattern(n, 31)));
}
