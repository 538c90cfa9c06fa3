// SPDX-License-Identifier: MIT
// The driver instance: a live setter makes a new instance for later requests; an old engine is
// torn down only where no request, callback or lock is (a setter's or the closing thread, the
// driver's locks free); what GetProperties reports is what requests use.
#include <fcntl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "../c_api/helpers.hpp"
#include "seam.hpp"
#include "staging/engine.hpp"

using namespace hipfile::test;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMiB = 1u << 20;

// Where engines were destroyed: the thread, and whether the driver's locks were free then (a
// driver call from another thread got through within two seconds).
struct Teardown {
  std::thread::id thread;
  bool locks_free = false;
};
std::mutex teardowns_mu;
std::vector<Teardown> teardowns;

void record_teardown() {
  // Detached: with the locks held, the probe finishes only after the teardown returns.
  auto answered = std::make_shared<std::promise<void>>();
  std::future<void> probe = answered->get_future();
  std::thread([answered] {
    hipFileDriverProps_t p{};
    (void)hipFileDriverGetProperties(&p);
    answered->set_value();
  }).detach();
  const bool free = probe.wait_for(2s) == std::future_status::ready;
  std::lock_guard lock(teardowns_mu);
  teardowns.push_back({std::this_thread::get_id(), free});
}

std::vector<Teardown> taken_teardowns() {
  std::lock_guard lock(teardowns_mu);
  return std::exchange(teardowns, {});
}

struct TeardownWatch {
  TeardownWatch() {
    taken_teardowns();
    hipfile::engine::on_engine_destroyed_for_test(record_teardown);
  }
  ~TeardownWatch() { hipfile::engine::on_engine_destroyed_for_test(nullptr); }
};

// preads wait here while the gate is shut: a request stays in flight as long as a test needs.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool shut = true;
  int waiting = 0;
};
Gate* gate = nullptr;

ssize_t gated_pread(int fd, void* buf, size_t count, off_t offset) {
  {
    std::unique_lock lock(gate->mu);
    ++gate->waiting;
    gate->cv.notify_all();
    gate->cv.wait(lock, [] { return !gate->shut; });
  }
  return ::pread(fd, buf, count, offset);
}

struct GatedReads {
  Gate g;
  ScopedSyscalls sc;
  GatedReads() {
    gate = &g;
    hipfile::sys::ops.pread = gated_pread;
  }
  ~GatedReads() { open(); }
  void wait_for_a_reader() {
    std::unique_lock lock(g.mu);
    REQUIRE(g.cv.wait_for(lock, 10s, [&] { return g.waiting > 0; }));
  }
  void open() {
    std::lock_guard lock(g.mu);
    g.shut = false;
    g.cv.notify_all();
  }
};

std::size_t largest_pread = 0;
std::mutex largest_mu;
ssize_t measured_pread(int fd, void* buf, size_t count, off_t offset) {
  {
    std::lock_guard lock(largest_mu);
    largest_pread = std::max(largest_pread, count);
  }
  return ::pread(fd, buf, count, offset);
}

// An open driver, a registered file of `n` bytes (pattern `seed`) and a device buffer as large.
struct OpenFile {
  ClosedDriver guard;
  bool opened = hipFileDriverOpen().err == hipFileSuccess;
  std::size_t n;
  TempFile f;
  Registered r;
  DeviceMem dev;
  OpenFile(std::size_t size, std::uint64_t seed) : n(size), f(size, seed), r(f.path(), O_RDONLY), dev(size) {
    REQUIRE(opened);
  }
};

}  // namespace

TEST_CASE("A live pinned-limit change during async I/O: the I/O completes, its engine is torn down at close", "[instance]") {
  OpenFile o(8 * kMiB, 81);
  auto [n, r, dev] = std::tie(o.n, o.r, o.dev);
  DeviceMem other(n);
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  REQUIRE(hipFileRead(r.handle, other.get(), n, 0, 0) == static_cast<ssize_t>(n));  // the engine is up
  TeardownWatch watch;
  std::size_t size = n;
  hoff_t foff = 0, boff = 0;
  ssize_t bytes = -1;
  {
    GatedReads gated;
    REQUIRE(hipFileReadAsync(r.handle, dev.get(), &size, &foff, &boff, &bytes, s).err == hipFileSuccess);
    gated.wait_for_a_reader();  // the operation holds the first engine, in a pread
    REQUIRE(hipFileDriverSetMaxPinnedMemSize(64 * 1024).err == hipFileSuccess);  // KiB: a new shape
    CHECK(taken_teardowns().empty());  // the first engine is still in use: kept
    gated.open();
    HIP_CHECK(hipStreamSynchronize(s));
  }
  CHECK(bytes == static_cast<ssize_t>(n));
  CHECK(to_host(dev.get(), n) == pattern(n, 81));
  // A request after the change, on the new engine, while the first one waits for the close.
  fill_device(other.get(), 0, n);
  REQUIRE(hipFileRead(r.handle, other.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(other.get(), n) == pattern(n, 81));
  CHECK(taken_teardowns().empty());  // not on the executor thread when the operation ended
  HIP_CHECK(hipStreamDestroy(s));
  hipFileHandleDeregister(r.handle);
  r.handle = nullptr;
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  const std::vector<Teardown> t = taken_teardowns();
  REQUIRE(t.size() == 2);  // both engines, on this thread, with the driver's locks free
  for (const Teardown& d : t) {
    CHECK(d.thread == std::this_thread::get_id());
    CHECK(d.locks_free);
  }
}

TEST_CASE("A live limit change with no I/O in flight tears the old engine down outside the driver's locks", "[instance]") {
  OpenFile o(4 * kMiB, 82);
  auto [n, r, dev] = std::tie(o.n, o.r, o.dev);
  REQUIRE(hipFileRead(r.handle, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));
  TeardownWatch watch;
  REQUIRE(hipFileDriverSetMaxDirectIOSize(256).err == hipFileSuccess);  // KiB
  std::vector<Teardown> t = taken_teardowns();
  REQUIRE(t.size() == 1);
  CHECK(t[0].thread == std::this_thread::get_id());
  CHECK(t[0].locks_free);  // other requests were never stalled behind the teardown
  fill_device(dev.get(), 0, n);
  REQUIRE(hipFileRead(r.handle, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));
  CHECK(to_host(dev.get(), n) == pattern(n, 82));
  REQUIRE(hipFileDriverClose().err == hipFileSuccess);
  t = taken_teardowns();
  REQUIRE(t.size() == 1);
  CHECK(t[0].locks_free);
}

TEST_CASE("GetProperties reports the chunk that requests use, under a pinned limit that shrinks it", "[instance]") {
  OpenFile o(16 * kMiB, 83);
  auto [n, r, dev] = std::tie(o.n, o.r, o.dev);
  // 256 KiB of pinned memory cannot hold 4 MiB chunks for any number of workers.
  REQUIRE(hipFileDriverSetMaxDirectIOSize(4096).err == hipFileSuccess);
  REQUIRE(hipFileDriverSetMaxPinnedMemSize(256).err == hipFileSuccess);
  hipFileDriverProps_t p{};
  REQUIRE(hipFileDriverGetProperties(&p).err == hipFileSuccess);
  const std::size_t reported = std::size_t{p.nvfs.max_direct_io_size} * 1024;
  CHECK(reported < 4 * kMiB);
  CHECK(p.max_device_pinned_mem_size == 256);
  {
    ScopedSyscalls sc;
    largest_pread = 0;
    hipfile::sys::ops.pread = measured_pread;
    REQUIRE(hipFileRead(r.handle, dev.get(), n, 0, 0) == static_cast<ssize_t>(n));  // staged: < 32 MiB
  }
  CHECK(to_host(dev.get(), n) == pattern(n, 83));
  CHECK(largest_pread > 0);
  CHECK(largest_pread <= reported);
  // The parameter reports what was set.
  std::size_t kb = 0;
  REQUIRE(hipFileGetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, &kb).err == hipFileSuccess);
  CHECK(kb == 4096);
}
