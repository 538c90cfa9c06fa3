// SPDX-License-Identifier: MIT
// The ends of a call on the workers: a staged read's caller is woken once every participant has
// read its last chunk (Job::reads_done) and waits for the last copies awake (Engine::await);
// workers watch the queue for a while after a job (Engine::linger). Whatever the wait mode, back
// -to-back calls and calls from several threads at once return the file's bytes.
#include <fcntl.h>

#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "../c_api/helpers.hpp"
#include "staging/job.hpp"

using namespace hipfile::test;
using hipfile::engine::Job;
using hipfile::engine::Request;

namespace {
constexpr std::size_t kMiB = 1u << 20;
}  // namespace

TEST_CASE("An awaited job wakes its caller when every participant's reads are done", "[await]") {
  Request read;
  read.size = 8 * kMiB;
  Job job(read, static_cast<off_t>(kMiB));
  job.participants = 2;
  job.awaited = true;
  std::atomic<bool> woke{false};
  std::thread caller([&] {
    std::unique_lock lock(job.mu);
    job.done_cv.wait(lock, [&] { return job.finished_reads.load() == job.participants; });
    woke = true;
  });
  job.reads_done();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(woke.load());  // one participant still reads
  job.reads_done();
  caller.join();
  CHECK(woke.load());
  CHECK(job.finished_reads.load() == 2);
  CHECK(job.finished.load() == 0);  // reads done is not the job done: copies may still run
}

TEST_CASE("A job nobody awaits (a request on its caller's thread) counts no reads", "[await]") {
  Request read;
  read.offset = 4096;
  read.size = 64 * 1024;
  Job job(read, static_cast<off_t>(kMiB));
  job.participants = 1;
  job.reads_done();
  CHECK(job.finished_reads.load() == 0);
  job.participant_done();
  CHECK(job.finished.load() == 1);
}

TEST_CASE("Back-to-back and concurrent reads on the workers return the file's bytes in every wait mode", "[await]") {
  ClosedDriver guard;
  const char* mode = GENERATE("poll", "spin", "block");
  CAPTURE(mode);
  ScopedEnv env{{"HIPFILE_THREADS", "4"}, {"HIPFILE_CHUNK_SIZE", "256k"}, {"HIPFILE_WAIT", mode},
                {"HIPFILE_MAPPED_READS", "0"}};
  const std::size_t n = 12 * kMiB + 777;
  TempFile f(n, 53);
  const auto file = read_file(f.path());
  Registered r(f.path(), O_RDONLY);
  // One after another, so that each call finds the workers of the last one still watching.
  for (int i = 0; i < 12; ++i) {
    const off_t offset = static_cast<off_t>(i) * 4096 * 97 + (i % 3);
    check_padded_read(r.handle, file, offset, 3 * kMiB + static_cast<std::size_t>(i) * 4099);
  }
  // Several callers at once, each awaiting its own job among the others'. Catch2 asserts on
  // this thread only: each caller keeps what it read and what the call returned.
  struct Read {
    off_t offset;
    ssize_t returned = -1;
    std::vector<std::byte> bytes;
  };
  constexpr std::size_t kSize = 2 * kMiB + 5;
  std::vector<Read> reads;
  for (int i = 0; i < 12; ++i) reads.push_back({static_cast<off_t>(i * 65536 + i), -1, {}});
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      void* dev = nullptr;
      if (hipMalloc(&dev, kSize) != hipSuccess) return;
      for (int i = t; i < 12; i += 3) {
        Read& rd = reads[static_cast<std::size_t>(i)];
        rd.returned = hipFileRead(r.handle, dev, kSize, rd.offset, 0);
        rd.bytes.resize(kSize);
        if (hipMemcpy(rd.bytes.data(), dev, kSize, hipMemcpyDeviceToHost) != hipSuccess) rd.bytes.clear();
      }
      (void)hipFree(dev);
    });
  for (auto& c : callers) c.join();
  for (const Read& rd : reads) {
    CAPTURE(rd.offset);
    REQUIRE(rd.returned == static_cast<ssize_t>(kSize));
    REQUIRE(rd.bytes.size() == kSize);
    CHECK(std::equal(rd.bytes.begin(), rd.bytes.end(), file.begin() + rd.offset));
  }
}
