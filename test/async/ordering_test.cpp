// SPDX-License-Identifier: MIT
// Stream-ordered I/O with earlier and later work on the same buffer: a write stores exactly what
// the stream held when it reached the write (earlier work still pending at submission, later
// work already queued behind it), a read is seen by the copy after it and by nothing before.
// Buffered and O_DIRECT files, registered and unregistered buffers, one piece and many (more than
// the ring of staging slots), short reads at end of file; many threads each with its own stream,
// frees in other threads, and async work beside NULL-stream work and batch I/O. Earlier work is
// held by a host function that sleeps: the test must not depend on device-side waits either.
#include "common.hpp"

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace hipfile::test;

namespace {

constexpr std::size_t kKiB = 1024, kMiB = 1024 * 1024;

void sleep_on_stream(void* ms) { std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms))); }

int g_sleep_ms = 30;

// Holds the stream in a host function for a while, so that what follows is queued long before
// the stream reaches it.
void hold(hipStream_t s) { HIP_CHECK(launch_host_func(s, sleep_on_stream, &g_sleep_ms)); }

std::vector<std::byte> bytes_of(int value, std::size_t n) { return std::vector<std::byte>(n, std::byte(value)); }

// Whether the test file system takes O_DIRECT (tmpfs does not).
bool direct_works(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_DIRECT);
  if (fd >= 0) ::close(fd);
  return fd >= 0;
}

struct MaybeRegistered {
  void* p = nullptr;
  MaybeRegistered(void* ptr, std::size_t n, bool registered) {
    if (registered) {
      HF_OK(hipFileBufRegister(ptr, n, 0));
      p = ptr;
    }
  }
  ~MaybeRegistered() {
    if (p) (void)hipFileBufDeregister(p);
  }
};

}  // namespace

TEST_CASE("a write stores what the stream held; a read is seen by the copy after it") {
  DriverScope drv;
  const bool direct = GENERATE(false, true);
  const bool registered = GENERATE(false, true);
  // One piece; several; more pieces than the ring of slots (past 8 chunks), with an unaligned tail.
  const std::size_t size = GENERATE(64 * kKiB + 100, 9 * kMiB, 40 * kMiB + 4096 + 77);
  CAPTURE(direct, registered, size);
  const std::size_t file_size = size + 2 * 4096;
  TempFile f(file_size, 41);
  if (direct && !direct_works(f.path())) HIPFILE_SKIP("the test file system refuses O_DIRECT");
  OpenFile cf(f.path(), O_RDWR | (direct ? O_DIRECT : 0));
  DeviceMem dev(size);
  MaybeRegistered reg(dev.get(), size, registered);
  Stream s;
  std::vector<std::byte> host(size);
  HIP_CHECK(hipHostRegister(host.data(), size, 0));
  fill_device(dev.get(), 0, size);

  // Write: earlier work (held, then the pattern) and later work (another value) around it.
  std::size_t wsize = size;
  hoff_t foff = 4096, boff = 0;
  ssize_t written = -77;
  hold(s);
  HIP_CHECK(hipMemsetAsync(dev.get(), 0x5A, size, s));
  HF_OK(hipFileWriteAsync(cf.fh, dev.get(), &wsize, &foff, &boff, &written, s));
  HIP_CHECK(hipMemsetAsync(dev.get(), 0x11, size, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(written == static_cast<ssize_t>(size));
  auto expected = pattern(file_size, 41);
  std::memset(expected.data() + 4096, 0x5A, size);
  CHECK(same(read_file(f.path()), expected));

  // Read: earlier work sets the buffer, the read replaces it, the copy after it sees the file,
  // later work changes the buffer again.
  ssize_t got = -77;
  std::size_t rsize = size;
  hoff_t roff = 0;
  hold(s);
  HIP_CHECK(hipMemsetAsync(dev.get(), 0x22, size, s));
  HF_OK(hipFileReadAsync(cf.fh, dev.get(), &rsize, &roff, &boff, &got, s));
  HIP_CHECK(hipMemcpyAsync(host.data(), dev.get(), size, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipMemsetAsync(dev.get(), 0x33, size, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(got == static_cast<ssize_t>(size));
  CHECK(std::memcmp(host.data(), expected.data(), size) == 0);
  CHECK(same(to_host(dev.get(), size), bytes_of(0x33, size)));
  HIP_CHECK(hipHostUnregister(host.data()));
}

TEST_CASE("a read that ends at end of file leaves the rest of its window as the stream had it") {
  DriverScope drv;
  const std::size_t file_size = GENERATE(5 * kMiB + 123, 100 * kKiB, std::size_t{0});
  CAPTURE(file_size);
  const std::size_t window = 40 * kMiB;  // more pieces than the ring
  TempFile f(file_size, 42);
  OpenFile of(f.path());
  DeviceMem dev(window + 8192);
  fill_device(dev.get(), 0x77, dev.size());
  Stream s;
  std::size_t size = window;
  hoff_t foff = 0, boff = 4096;
  ssize_t got = -77;
  hold(s);
  HF_OK(hipFileReadAsync(of.fh, dev.get(), &size, &foff, &boff, &got, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(got == static_cast<ssize_t>(file_size));
  auto seen = to_host(dev.get(), dev.size());
  auto expected = bytes_of(0x77, dev.size());
  auto data = pattern(file_size, 42);
  std::copy(data.begin(), data.end(), expected.begin() + 4096);
  CHECK(same(seen, expected));
}

TEST_CASE("CPU-accessible memory is read and written in stream order too") {
  DriverScope drv;
  const bool pinned = GENERATE(false, true);
  CAPTURE(pinned);
  const std::size_t size = 5 * kMiB + 17;
  TempFile f(size, 43);
  OpenFile of(f.path());
  std::vector<std::byte> pageable(pinned ? 0 : size);
  std::byte* host = pageable.data();
  if (pinned) HIP_CHECK(hipHostMalloc(reinterpret_cast<void**>(&host), size, 0));
  Stream s;
  std::size_t n = size;
  hoff_t zero = 0;
  ssize_t got = -77;
  hold(s);
  HF_OK(hipFileReadAsync(of.fh, host, &n, &zero, &zero, &got, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(got == static_cast<ssize_t>(size));
  CHECK(std::memcmp(host, pattern(size, 43).data(), size) == 0);
  std::memset(host, 0x6B, size);
  ssize_t written = -77;
  HF_OK(hipFileWriteAsync(of.fh, host, &n, &zero, &zero, &written, s));
  HIP_CHECK(hipStreamSynchronize(s));
  REQUIRE(written == static_cast<ssize_t>(size));
  CHECK(same(read_file(f.path()), bytes_of(0x6B, size)));
  if (pinned) HIP_CHECK(hipHostFree(host));
}

namespace {

// One thread's rounds on its own stream and buffer, as a serving program does them: set the
// buffer, hold the stream, queue the pattern, the write, another value, then read the region
// back and copy it out. Returns the rounds that came back wrong.
// Its buffer is freed as soon as its own stream is done, while other threads' are not.
int run_rounds(hipFileHandle_t fh, int id, int rounds, std::size_t size) {
  int wrong = 0;
  void* dev = nullptr;
  hipStream_t s = nullptr;
  if (hipMalloc(&dev, size) != hipSuccess || hipStreamCreate(&s) != hipSuccess) return rounds;
  std::vector<unsigned char> host(size);
  const auto foff = static_cast<hoff_t>(static_cast<std::size_t>(id) * size);
  for (int r = 0; r < rounds; ++r) {
    const int value = 1 + (id * 7 + r) % 250;
    std::size_t n = size;
    hoff_t boff = 0, off = foff;
    ssize_t written = -77, got = -77;
    bool ok = hipMemset(dev, 0, size) == hipSuccess && launch_host_func(s, sleep_on_stream, &g_sleep_ms) == hipSuccess &&
              hipMemsetAsync(dev, value, size, s) == hipSuccess &&
              hipFileWriteAsync(fh, dev, &n, &off, &boff, &written, s).err == hipFileSuccess &&
              hipMemsetAsync(dev, value + 1, size, s) == hipSuccess && hipStreamSynchronize(s) == hipSuccess &&
              hipFileReadAsync(fh, dev, &n, &off, &boff, &got, s).err == hipFileSuccess &&
              hipMemcpyAsync(host.data(), dev, size, hipMemcpyDeviceToHost, s) == hipSuccess &&
              hipStreamSynchronize(s) == hipSuccess;
    ok = ok && written == static_cast<ssize_t>(size) && got == static_cast<ssize_t>(size);
    for (std::size_t i = 0; ok && i < size; ++i) ok = host[i] == value;
    if (!ok) ++wrong;
  }
  (void)hipStreamDestroy(s);
  (void)hipFree(dev);
  return wrong;
}

}  // namespace

TEST_CASE("many threads, each on its own stream, with frees in other threads") {
  DriverScope drv;
  const int threads = GENERATE(1, 8, 16, 64);
  const bool with_freer = GENERATE(false, true);
  CAPTURE(threads, with_freer);
  const int rounds = threads >= 64 ? 3 : 6;
  const std::size_t size = 256 * kKiB + 4096;
  TempFile f(static_cast<std::size_t>(threads) * size, 44);
  OpenFile of(f.path());
  std::atomic<bool> stop{false};
  std::atomic<int> frees{0};
  // Frees device and pinned memory in a loop while the others have operations in flight.
  std::thread freer;
  if (with_freer)
    freer = std::thread([&] {
      while (!stop.load()) {
        void* d = nullptr;
        void* h = nullptr;
        if (hipMalloc(&d, 1 << 20) == hipSuccess) (void)hipFree(d);
        if (hipHostMalloc(&h, 1 << 20, 0) == hipSuccess) (void)hipHostFree(h);
        frees.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  std::vector<std::thread> pool;
  std::vector<int> wrong(static_cast<std::size_t>(threads), 0);
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { wrong[static_cast<std::size_t>(t)] = run_rounds(of.fh, t, rounds, size); });
  for (auto& th : pool) th.join();
  stop = true;
  if (freer.joinable()) freer.join();
  for (int t = 0; t < threads; ++t) CHECK(wrong[static_cast<std::size_t>(t)] == 0);
  if (with_freer) CHECK(frees.load() > 0);
}

TEST_CASE("an async read on a blocking stream, NULL-stream work, then a batch of 64 reads") {
  DriverScope drv;
  constexpr int kOps = 64;
  constexpr std::size_t kOp = 64 * kKiB;
  TempFile f(kOps * kOp, 45);
  OpenFile of(f.path());
  DeviceMem a(kOp), b(kOps * kOp), c(kOp);
  Stream s;  // blocking: the NULL stream waits for it, and it for the NULL stream
  std::size_t size = kOp;
  hoff_t zero = 0;
  ssize_t got = -77;
  hold(s);
  HF_OK(hipFileReadAsync(of.fh, a.get(), &size, &zero, &zero, &got, s));
  HIP_CHECK(hipMemsetAsync(c.get(), 0x44, kOp, nullptr));  // the NULL stream now waits for s
  hipFileBatchHandle_t batch = nullptr;
  HF_OK(hipFileBatchIOSetUp(&batch, kOps));
  std::vector<hipFileIOParams_t> io(kOps);
  for (int i = 0; i < kOps; ++i) {
    io[i] = hipFileIOParams_t{};
    io[i].mode = hipFileBatch;
    io[i].opcode = hipFileBatchRead;
    io[i].fh = of.fh;
    io[i].u.batch.devPtr_base = b.get();
    io[i].u.batch.devPtr_offset = static_cast<hoff_t>(i * kOp);
    io[i].u.batch.file_offset = static_cast<hoff_t>(i * kOp);
    io[i].u.batch.size = kOp;
  }
  HF_OK(hipFileBatchIOSubmit(batch, kOps, io.data(), 0));
  std::vector<hipFileIOEvents_t> events(kOps);
  unsigned done = 0;
  while (done < kOps) {
    unsigned nr = kOps - done;
    timespec limit{60, 0};
    HF_OK(hipFileBatchIOGetStatus(batch, 1, &nr, events.data(), &limit));
    REQUIRE(nr > 0);  // a minute without one event is a hang
    for (unsigned i = 0; i < nr; ++i) CHECK(events[i].status == hipFileComplete);
    done += nr;
  }
  hipFileBatchIODestroy(batch);
  HIP_CHECK(hipStreamSynchronize(s));
  HIP_CHECK(hipDeviceSynchronize());
  CHECK(got == static_cast<ssize_t>(kOp));
  CHECK(same(to_host(a.get(), kOp), pattern(kOp, 45)));
  CHECK(same(to_host(b.get(), kOps * kOp), pattern(kOps * kOp, 45)));
}
