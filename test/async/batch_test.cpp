// SPDX-License-Identifier: MIT
// Batch I/O: setup limits, 128-entry mixed batches byte for byte, events once with cookies,
// BatchFull, timeouts, cancel, destroy while running, concurrent batches, per-op errors.
#include <hipfile++/batch.hpp>

#include "common.hpp"

#include <time.h>

#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

using namespace hipfile::test;

namespace {

constexpr std::size_t kKiB = 1024;

// Collects exactly n events (waiting without a timeout).
std::vector<hipFileIOEvents_t> collect(hipFileBatchHandle_t b, unsigned n) {
  std::vector<hipFileIOEvents_t> all;
  while (all.size() < n) {
    std::vector<hipFileIOEvents_t> ev(n);
    unsigned nr = n;
    HF_OK(hipFileBatchIOGetStatus(b, 1, &nr, ev.data(), nullptr));
    all.insert(all.end(), ev.begin(), ev.begin() + nr);
  }
  return all;
}

}  // namespace

TEST_CASE("setup limits") {
  hipFileBatchHandle_t b = nullptr;
  CHECK(hipFileBatchIOSetUp(nullptr, 4).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOSetUp(&b, 0).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOSetUp(&b, 129).err == hipFileInvalidValue);
  HF_OK(hipFileBatchIOSetUp(&b, 128));
  hipFileBatchIODestroy(b);
  HF_OK(hipFileBatchIOSetUp(&b, 1));
  hipFileBatchIODestroy(b);
  // Destroyed or unknown handles.
  unsigned nr = 1;
  hipFileIOParams_t io{};
  hipFileIOEvents_t ev[1];
  CHECK(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOCancel(b).err == hipFileInvalidValue);
  hipFileBatchIODestroy(b);        // ignored
  hipFileBatchIODestroy(nullptr);  // ignored
}

TEST_CASE("a handle kept past its destroy never reaches a later batch") {
  // The allocator hands a freed object's address out again at once: a handle that was the
  // address would name the next batch.
  hipFileBatchHandle_t old = nullptr;
  HF_OK(hipFileBatchIOSetUp(&old, 4));
  hipFileBatchIODestroy(old);
  std::vector<hipFileBatchHandle_t> later(64);
  for (auto& b : later) HF_OK(hipFileBatchIOSetUp(&b, 4));
  for (auto b : later) CHECK(b != old);
  unsigned nr = 0;
  hipFileIOEvents_t ev[1];
  CHECK(hipFileBatchIOGetStatus(old, 0, &nr, ev, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOCancel(old).err == hipFileInvalidValue);
  hipFileBatchIODestroy(old);  // ignored: every later batch still works
  for (auto b : later) CHECK(hipFileBatchIOCancel(b).err == hipFileSuccess);
  for (auto b : later) hipFileBatchIODestroy(b);
}

TEST_CASE("a 128-entry batch of mixed reads and writes, byte for byte") {
  DriverScope drv;
  constexpr unsigned n = 128;
  constexpr std::size_t region = 64 * kKiB;
  TempFile f(n * region, 7);
  OpenFile of(f.path());
  DeviceMem dev(n * region);
  // Even entries read file region i into device region i; odd entries write device region i
  // (filled with another pattern) to file region i. Sizes vary, some unaligned and small.
  auto src = pattern(n * region, 1234);
  to_device(dev.get(), src);
  std::vector<hipFileIOParams_t> ios;
  std::vector<std::size_t> sizes(n);
  for (unsigned i = 0; i < n; ++i) {
    sizes[i] = (i % 3 == 0) ? region : (i % 3 == 1 ? 1 + 37 * i : region - 511);
    const hoff_t off = static_cast<hoff_t>(i * region + (i % 5));
    sizes[i] = std::min(sizes[i], region - i % 5);
    ios.push_back(hipfile::batch_op(i % 2 ? hipFileBatchWrite : hipFileBatchRead, of.fh, dev.get(), sizes[i], off, off,
                     reinterpret_cast<void*>(std::uintptr_t(i + 1))));
  }
  hipFileBatchHandle_t b = nullptr;
  HF_OK(hipFileBatchIOSetUp(&b, n));
  HF_OK(hipFileBatchIOSubmit(b, n, ios.data(), 0));
  auto events = collect(b, n);
  std::set<std::uintptr_t> seen;
  for (const auto& e : events) {
    const auto i = reinterpret_cast<std::uintptr_t>(e.cookie) - 1;
    REQUIRE(i < n);
    CHECK(seen.insert(i).second);  // each reported once
    CHECK(e.status == hipFileComplete);
    CHECK(e.ret == sizes[i]);
  }
  CHECK(seen.size() == n);
  // Nothing more to report.
  unsigned nr = 4;
  hipFileIOEvents_t more[4];
  timespec poll{0, 0};
  HF_OK(hipFileBatchIOGetStatus(b, 0, &nr, more, &poll));
  CHECK(nr == 0);
  hipFileBatchIODestroy(b);

  auto file = read_file(f.path());
  auto host = to_host(dev.get(), dev.size());
  auto orig = pattern(n * region, 7);
  for (unsigned i = 0; i < n; ++i) {
    const std::size_t off = i * region + i % 5;
    CAPTURE(i);
    if (i % 2 == 0) {
      CHECK(std::memcmp(host.data() + off, orig.data() + off, sizes[i]) == 0);
      CHECK(std::memcmp(file.data() + off, orig.data() + off, sizes[i]) == 0);
    } else {
      CHECK(std::memcmp(file.data() + off, src.data() + off, sizes[i]) == 0);
      CHECK(std::memcmp(host.data() + off, src.data() + off, sizes[i]) == 0);
    }
  }
}

TEST_CASE("a batch handle is refused after the last driver close, as in hipFile 0.5") {
  TempFile f(64 * kKiB, 4);
  DeviceMem dev(64 * kKiB);
  hipFileBatchHandle_t b = nullptr;
  {
    DriverScope drv;
    OpenFile of(f.path());
    HF_OK(hipFileBatchIOSetUp(&b, 2));
    hipFileIOParams_t io = hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), 4096, 0, 0, nullptr);
    HF_OK(hipFileBatchIOSubmit(b, 1, &io, 0));
    auto ev = collect(b, 1);
    CHECK(ev[0].status == hipFileComplete);
    CHECK(ev[0].ret == 4096);
  }
  REQUIRE(hipFileUseCount() == 0);
  DriverScope again;  // a new open does not bring the old handle back
  OpenFile of(f.path());
  hipFileIOParams_t io = hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), 4096, 0, 0, nullptr);
  unsigned nr = 1;
  hipFileIOEvents_t ev[1];
  CHECK(hipFileBatchIOSubmit(b, 1, &io, 0).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOCancel(b).err == hipFileInvalidValue);
  hipFileBatchIODestroy(b);  // ignored
}

TEST_CASE("submission errors are all-or-nothing") {
  DriverScope drv;
  TempFile f(256 * kKiB, 2);
  OpenFile of(f.path());
  DeviceMem dev(256 * kKiB);
  hipFileBatchHandle_t b = nullptr;
  HF_OK(hipFileBatchIOSetUp(&b, 4));
  auto good = hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), 4096, 0, 0, nullptr);
  auto check_refused = [&](hipFileIOParams_t bad, hipFileOpError_t want) {
    hipFileIOParams_t ios[2] = {good, bad};
    CHECK(hipFileBatchIOSubmit(b, 2, ios, 0).err == want);
    unsigned nr = 4;
    hipFileIOEvents_t ev[4];
    timespec t{0, 20 * 1000 * 1000};
    HF_OK(hipFileBatchIOGetStatus(b, 0, &nr, ev, &t));
    CHECK(nr == 0);  // the good one was not queued either
  };
  auto bad = good;
  bad.mode = static_cast<hipFileBatchMode_t>(0);
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  bad.opcode = static_cast<hipFileOpcode_t>(5);
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  bad.u.batch.file_offset = -1;
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  bad.u.batch.devPtr_offset = -1;
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  bad.u.batch.size = 512 * kKiB;
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  bad.u.batch.devPtr_base = nullptr;
  check_refused(bad, hipFileInvalidValue);
  bad = good;
  int junk = 0;
  bad.fh = reinterpret_cast<hipFileHandle_t>(&junk);
  check_refused(bad, hipFileHandleNotRegistered);
  CHECK(hipFileBatchIOSubmit(b, 1, nullptr, 0).err == hipFileInvalidValue);
  // hipFile 0.5: an empty submit and an empty status request are invalid (0.2: success).
  hipFileIOParams_t none[1] = {good};
  CHECK(hipFileBatchIOSubmit(b, 0, nullptr, 0).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOSubmit(b, 0, none, 0).err == hipFileInvalidValue);
  {
    unsigned zero = 0;
    hipFileIOEvents_t one[1];
    CHECK(hipFileBatchIOGetStatus(b, 0, &zero, one, nullptr).err == hipFileInvalidValue);
    CHECK(zero == 0);
  }
  // Invalid timespecs and counts.
  unsigned nr = 1;
  hipFileIOEvents_t ev[1];
  timespec t{0, 1000000000L};
  CHECK(hipFileBatchIOGetStatus(b, 0, &nr, ev, &t).err == hipFileInvalidValue);
  t = {-1, 0};
  CHECK(hipFileBatchIOGetStatus(b, 0, &nr, ev, &t).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOGetStatus(b, 0, nullptr, ev, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileBatchIOGetStatus(b, 2, &nr, ev, nullptr).err == hipFileInvalidValue);  // min_nr > nr
  hipFileBatchIODestroy(b);
}

TEST_CASE("per-operation errors are Failed events with the negated error") {
  DriverScope drv;
  TempFile f(64 * kKiB, 2);
  OpenFile ro(f.path(), O_RDONLY);
  DeviceMem dev(64 * kKiB);
  hipFileBatchHandle_t b = nullptr;
  HF_OK(hipFileBatchIOSetUp(&b, 2));
  hipFileIOParams_t ios[2] = {hipfile::batch_op(hipFileBatchWrite, ro.fh, dev.get(), 4096, 0, 0, &ro),
                              hipfile::batch_op(hipFileBatchRead, ro.fh, dev.get(), 4096, 0, 0, nullptr)};
  HF_OK(hipFileBatchIOSubmit(b, 2, ios, 0));
  for (const auto& e : collect(b, 2)) {
    if (e.cookie == &ro) {
      CHECK(e.status == hipFileFailed);
      CHECK(static_cast<ssize_t>(e.ret) == -EBADF);
    } else {
      CHECK(e.status == hipFileComplete);
      CHECK(e.ret == 4096);
    }
  }
  hipFileBatchIODestroy(b);
}

TEST_CASE("capacity: BatchFull until events are reported") {
  DriverScope drv;
  TempFile f(64 * kKiB, 2);
  OpenFile of(f.path());
  DeviceMem dev(64 * kKiB);
  hipFileBatchHandle_t b = nullptr;
  HF_OK(hipFileBatchIOSetUp(&b, 3));
  // Every submitted operation gets its own destination: operations in flight together must
  // not write the same device bytes (ThreadSanitizer flags it, rightly).
  std::vector<hipFileIOParams_t> ios;
  for (int i = 0; i < 16; ++i) ios.push_back(hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), 4096, 0, i * 4096, nullptr));
  CHECK(hipFileBatchIOSubmit(b, 4, ios.data(), 0).err == hipFileBatchFull);
  HF_OK(hipFileBatchIOSubmit(b, 2, ios.data(), 0));
  CHECK(hipFileBatchIOSubmit(b, 2, ios.data() + 2, 0).err == hipFileBatchFull);
  HF_OK(hipFileBatchIOSubmit(b, 1, ios.data() + 2, 0));
  // Completed but unreported events still take their place.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(hipFileBatchIOSubmit(b, 1, ios.data() + 3, 0).err == hipFileBatchFull);
  collect(b, 3);
  HF_OK(hipFileBatchIOSubmit(b, 3, ios.data() + 3, 0));
  collect(b, 3);
  hipFileBatchIODestroy(b);
}

TEST_CASE("timeouts, cancel of work not yet started, destroy while running") {
  DriverScope drv;
  TempFile f(16u << 20, 2);
  OpenFile of(f.path());
  DeviceMem dev(16u << 20);
  constexpr unsigned n = 128;
  std::vector<hipFileIOParams_t> ios;
  for (unsigned i = 0; i < n; ++i)
    ios.push_back(hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), 128 * kKiB, i * 128 * kKiB, i * 128 * kKiB,
                     reinterpret_cast<void*>(std::uintptr_t(i))));

  SECTION("a poll returns at once; min_nr is capped to what is outstanding") {
    hipFileBatchHandle_t b = nullptr;
    HF_OK(hipFileBatchIOSetUp(&b, n));
    unsigned nr = n;
    std::vector<hipFileIOEvents_t> ev(n);
    timespec poll{0, 0};
    HF_OK(hipFileBatchIOGetStatus(b, 1, &nr, ev.data(), &poll));  // nothing outstanding
    CHECK(nr == 0);
    HF_OK(hipFileBatchIOSubmit(b, 4, ios.data(), 0));
    nr = n;
    HF_OK(hipFileBatchIOGetStatus(b, n, &nr, ev.data(), nullptr));  // waits for the 4
    CHECK(nr == 4);
    hipFileBatchIODestroy(b);
  }
  SECTION("cancel: every event reported once, Complete or Canceled") {
    hipFileBatchHandle_t b = nullptr;
    HF_OK(hipFileBatchIOSetUp(&b, n));
    HF_OK(hipFileBatchIOSubmit(b, n, ios.data(), 0));
    HF_OK(hipFileBatchIOCancel(b));
    std::vector<hipFileIOEvents_t> ev(n);
    unsigned nr = n;
    timespec t{1, 0};
    HF_OK(hipFileBatchIOGetStatus(b, n, &nr, ev.data(), &t));
    CHECK(nr == n);  // all finished: cancel waited for the running ones
    std::set<void*> cookies;
    for (unsigned i = 0; i < nr; ++i) {
      CHECK(cookies.insert(ev[i].cookie).second);
      CHECK((ev[i].status == hipFileComplete || ev[i].status == hipFileCanceled));
      if (ev[i].status == hipFileComplete) CHECK(ev[i].ret == 128 * kKiB);
    }
    hipFileBatchIODestroy(b);
  }
  SECTION("destroy while running, then the handle is gone") {
    hipFileBatchHandle_t b = nullptr;
    HF_OK(hipFileBatchIOSetUp(&b, n));
    HF_OK(hipFileBatchIOSubmit(b, n, ios.data(), 0));
    hipFileBatchIODestroy(b);
    unsigned nr = 1;
    hipFileIOEvents_t ev[1];
    CHECK(hipFileBatchIOGetStatus(b, 0, &nr, ev, nullptr).err == hipFileInvalidValue);
  }
}

TEST_CASE("concurrent batches from several threads") {
  DriverScope drv;
  constexpr int kThreads = 4;
  constexpr unsigned n = 32;
  constexpr std::size_t kOp = 16 * kKiB;
  TempFile f(kThreads * n * kOp, 17);
  OpenFile of(f.path());
  DeviceMem dev(kThreads * n * kOp);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) {
        hipFileBatchHandle_t b = nullptr;
        if (hipFileBatchIOSetUp(&b, n).err != hipFileSuccess) {
          ++failures;
          return;
        }
        std::vector<hipFileIOParams_t> ios;
        for (unsigned i = 0; i < n; ++i) {
          const hoff_t off = static_cast<hoff_t>((t * n + i) * kOp);
          ios.push_back(hipfile::batch_op(hipFileBatchRead, of.fh, dev.get(), kOp, off, off, nullptr));
        }
        if (hipFileBatchIOSubmit(b, n, ios.data(), 0).err != hipFileSuccess) ++failures;
        unsigned got = 0;
        std::vector<hipFileIOEvents_t> ev(n);
        while (got < n) {
          unsigned nr = n;
          if (hipFileBatchIOGetStatus(b, 1, &nr, ev.data(), nullptr).err != hipFileSuccess) {
            ++failures;
            break;
          }
          for (unsigned i = 0; i < nr; ++i)
            if (ev[i].status != hipFileComplete || ev[i].ret != kOp) ++failures;
          got += nr;
        }
        hipFileBatchIODestroy(b);
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == 0);
  CHECK(same(to_host(dev.get(), dev.size()), pattern(dev.size(), 17)));
}
