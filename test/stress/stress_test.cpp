// SPDX-License-Identifier: MIT
// Many threads at once: each opens the driver, registers a file (and sometimes its buffer), does
// a sync, an async or a batch write and read of its own range of one shared file, checks the
// bytes, deregisters and closes the driver. Every so often all of them close together (a last
// close, the instance torn down) and race to open again, while another thread keeps changing
// the pinned-memory limit (new instances while I/O runs). CI runs it for a few seconds; under
// ASan+UBSan and TSan it runs for a minute:
//   HIPFILE_STRESS_SECONDS=60 HIPFILE_STRESS_THREADS=64 build/test/stress/stress_test
// HIPFILE_STRESS_CHANGE_MS sets the limit changer's period (default 3; 0: no changes),
// HIPFILE_STRESS_FORMS the I/O forms (0 sync, 1 async, 2 batch; default all three). A line a second on
// stderr says how far it got; after HIPFILE_STRESS_STALL_S seconds (default 30; 0: never) with
// no iteration finished it prints every thread's stack and fails. HIPFILE_STRESS_STREAM_COPIES=1
// makes the checks' copies on each thread's stream instead of synchronous hipMemcpy.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../c_api/helpers.hpp"
#include "stacks.hpp"

using namespace hipfile::test;

namespace {

constexpr std::size_t kRange = 1u << 20;  // each thread's part of the file
constexpr const char* kForms = "012";
using Clock = std::chrono::steady_clock;

unsigned knob(const char* name, unsigned fallback) {
  const char* v = std::getenv(name);
  return v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : fallback;
}

struct Shared {
  std::string path;
  std::string forms = kForms;  // HIPFILE_STRESS_FORMS: which of write_then_read's forms to use
  Clock::time_point until;
  std::atomic<unsigned> failures{0};
  std::atomic<unsigned> last_closes{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> iterations{0};
  std::atomic<bool> done{false};
  bool stream_copies = false;  // HIPFILE_STRESS_STREAM_COPIES=1: the checks' copies on the thread's stream
  std::mutex mu;
  std::vector<std::string> first_failures;  // Catch2 is not thread-safe: reported by the main thread
  void fail(const std::string& what, unsigned thread) {
    ++failures;
    std::lock_guard lock(mu);
    if (first_failures.size() < 20) first_failures.push_back("thread " + std::to_string(thread) + ": " + what);
  }
};

// One write and one read of `size` bytes at `at` through the form `how` picks: 0 sync, 1 async
// on `stream`, 2 a batch of one write, then one read. Returns bytes read, or -1.
ssize_t write_then_read(unsigned how, hipFileHandle_t fh, void* src, void* dst, std::size_t size, hoff_t at,
                        hipStream_t stream) {
  if (how == 0) {
    if (hipFileWrite(fh, src, size, at, 0) != static_cast<ssize_t>(size)) return -1;
    return hipFileRead(fh, dst, size, at, 0);
  }
  if (how == 1) {
    std::size_t sz = size;
    hoff_t fo = at, bo = 0;
    ssize_t wrote = -1, read = -1;
    if (hipFileWriteAsync(fh, src, &sz, &fo, &bo, &wrote, stream).err != hipFileSuccess) return -1;
    if (hipFileReadAsync(fh, dst, &sz, &fo, &bo, &read, stream).err != hipFileSuccess) return -1;
    if (hipStreamSynchronize(stream) != hipSuccess || wrote != static_cast<ssize_t>(size)) return -1;
    return read;
  }
  hipFileBatchHandle_t batch = nullptr;
  if (hipFileBatchIOSetUp(&batch, 1).err != hipFileSuccess) return -1;
  ssize_t result = -1;
  for (int op = 0; op < 2; ++op) {
    hipFileIOParams_t p{};
    p.mode = hipFileBatch;
    p.fh = fh;
    p.opcode = op == 0 ? hipFileBatchWrite : hipFileBatchRead;
    p.u.batch.devPtr_base = op == 0 ? src : dst;
    p.u.batch.size = size;
    p.u.batch.file_offset = at;
    hipFileIOEvents_t ev{};
    unsigned nr = 1;
    if (hipFileBatchIOSubmit(batch, 1, &p, 0).err != hipFileSuccess ||
        hipFileBatchIOGetStatus(batch, 1, &nr, &ev, nullptr).err != hipFileSuccess || nr != 1 ||
        ev.status != hipFileComplete || ev.ret != size) {
      result = -1;
      break;
    }
    result = static_cast<ssize_t>(ev.ret);
  }
  hipFileBatchIODestroy(batch);
  return result;
}

// The checks' copies: synchronous hipMemcpy, or on the thread's own stream. CUDA's synchronous
// copy holds the context lock while it waits for the device (bench/RESULTS.md), which async I/O
// in flight on other streams may need: the knob tells that hang from the library's own.
void put(const Shared& s, void* dst, const std::vector<std::byte>& bytes, hipStream_t stream) {
  if (!s.stream_copies) {
    to_device(dst, bytes);
    // A pageable source: CUDA may return before the bytes land, and the I/O that follows runs on
    // a non-blocking stream, not ordered after the NULL stream.
    if (hipStreamSynchronize(nullptr) != hipSuccess) throw std::runtime_error("hipStreamSynchronize(NULL) failed");
    return;
  }
  if (hipMemcpyAsync(dst, bytes.data(), bytes.size(), hipMemcpyHostToDevice, stream) != hipSuccess ||
      hipStreamSynchronize(stream) != hipSuccess)
    throw std::runtime_error("hipMemcpyAsync to device failed");
}
std::vector<std::byte> get(const Shared& s, const void* src, std::size_t size, hipStream_t stream) {
  if (!s.stream_copies) return to_host(src, size);
  std::vector<std::byte> out(size);
  if (hipMemcpyAsync(out.data(), src, size, hipMemcpyDeviceToHost, stream) != hipSuccess ||
      hipStreamSynchronize(stream) != hipSuccess)
    throw std::runtime_error("hipMemcpyAsync to host failed");
  return out;
}

// One iteration: open, register, write and read back, check, deregister, close.
void iteration(Shared& s, unsigned t, std::mt19937_64& rng, DeviceMem& src, DeviceMem& dst, hipStream_t stream) {
  if (hipFileDriverOpen().err != hipFileSuccess) return s.fail("driver open", t);
  const int fd = ::open(s.path.c_str(), O_RDWR | O_CLOEXEC);
  hipFileHandle_t fh = nullptr;
  if (fd < 0 || register_fd(fd, &fh).err != hipFileSuccess) {
    s.fail("handle register", t);
  } else {
    const bool reg = rng() % 2 == 0;
    if (reg && hipFileBufRegister(src.get(), kRange, 0).err != hipFileSuccess) s.fail("buffer register", t);
    const std::size_t size = 1 + rng() % kRange;
    const auto at = static_cast<hoff_t>(t * kRange);
    const std::uint64_t seed = rng();
    put(s, src.get(), pattern(size, seed), stream);
    const unsigned how = static_cast<unsigned>(s.forms[rng() % s.forms.size()] - '0');
    if (write_then_read(how, fh, src.get(), dst.get(), size, at, stream) != static_cast<ssize_t>(size))
      s.fail("I/O form " + std::to_string(how) + " of " + std::to_string(size) + " bytes", t);
    else if (get(s, dst.get(), size, stream) != pattern(size, seed))
      s.fail("bytes differ after form " + std::to_string(how), t);
    else
      s.bytes += 2 * size;
    if (reg && hipFileBufDeregister(src.get()).err != hipFileSuccess) s.fail("buffer deregister", t);
    hipFileHandleDeregister(fh);
  }
  if (fd >= 0) ::close(fd);
  if (hipFileDriverClose().err != hipFileSuccess) s.fail("driver close", t);
  ++s.iterations;
}

// Runs when every thread has arrived at the barrier: at the first of each pair all have closed
// the driver (so that was a last close), at the second they are let go to open it again.
struct Census {
  Shared* s;
  unsigned* phase;
  void operator()() noexcept {
    if ((*phase)++ % 2 == 0 && hipFileUseCount() == 0) ++s->last_closes;
  }
};
using Together = std::barrier<Census>;

// Each thread's device memory, freed only after every thread has finished: hipFree synchronizes
// the device, so on CUDA (and hip-cpu) freeing it while another thread's stream waits for an async
// operation would wait for ever (doc/async-batch.md).
struct Buffers {
  DeviceMem src{kRange}, dst{kRange};
};

void worker(Shared& s, unsigned t, Together& together, Buffers& mem) {
  std::mt19937_64 rng(t * 7919 + 1);
  DeviceMem &src = mem.src, &dst = mem.dst;
  hipStream_t stream = nullptr;
  if (hipStreamCreateWithFlags(&stream, hipStreamNonBlocking) != hipSuccess) return s.fail("stream", t);
  for (unsigned i = 1; Clock::now() < s.until; ++i) {
    iteration(s, t, rng, src, dst, stream);
    if (i % 4 == 0) {
      together.arrive_and_wait();  // every thread has closed: the driver is closed now
      together.arrive_and_wait();  // and all race to open again
    }
  }
  together.arrive_and_drop();
  (void)hipStreamDestroy(stream);
}

// A new instance every `ms` milliseconds, while the others' I/O runs on the old ones.
void limit_changer(Shared& s, unsigned ms) {
  for (unsigned i = 0; ms != 0 && !s.done; ++i) {
    const std::size_t kib = (i % 2 ? 64u : 256u) << 10;
    hipFileError_t e = hipFileDriverSetMaxPinnedMemSize(kib);
    if (e.err != hipFileSuccess) s.fail("set pinned limit: " + std::to_string(e.err), 999);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
}

// No iteration finished for `stall_s` seconds: every thread's stack goes to stderr, and the run
// ends failed instead of waiting for the test harness's timeout.
void stop_stalled(unsigned stall_s) {
  std::fprintf(stderr, "stress: stuck, no iteration finished in %u s; every thread's stack:\n", stall_s);
  dump_thread_stacks(2);
  std::fflush(stderr);
  std::_Exit(3);
}

// A line a second on stderr while the threads run, so a long or stuck run shows where it is.
void progress(const Shared& s, const std::atomic<unsigned>& running, unsigned stall_s) {
  const auto start = Clock::now();
  std::uint64_t seen = 0;
  unsigned still = 0;  // seconds without a finished iteration
  for (auto next = start + std::chrono::seconds(1); running > 0; next += std::chrono::seconds(1)) {
    while (running > 0 && Clock::now() < next) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (running == 0) break;
    still = s.iterations == seen ? still + 1 : 0;
    seen = s.iterations;
    if (stall_s != 0 && still >= stall_s) stop_stalled(stall_s);
    std::fprintf(stderr, "stress: %3llds, %u threads running, %llu iterations, %llu MiB checked, %u last closes, %u failures\n",
                 static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count()),
                 running.load(), static_cast<unsigned long long>(s.iterations.load()),
                 static_cast<unsigned long long>(s.bytes.load() >> 20), s.last_closes.load(), s.failures.load());
  }
}

}  // namespace

TEST_CASE("Threads register, read, write, deregister and close the driver at once", "[stress]") {
  ClosedDriver guard;
  const unsigned threads = knob("HIPFILE_STRESS_THREADS", 64), seconds = knob("HIPFILE_STRESS_SECONDS", 3);
  const unsigned change_ms = knob("HIPFILE_STRESS_CHANGE_MS", 3);  // 0: the limit never changes
  const unsigned stall_s = knob("HIPFILE_STRESS_STALL_S", 30);     // 0: wait for ever
  TempFile f(threads * kRange, 3);
  Shared s;
  s.path = f.path();
  if (const char* forms = std::getenv("HIPFILE_STRESS_FORMS"); forms && *forms) s.forms = forms;
  s.stream_copies = knob("HIPFILE_STRESS_STREAM_COPIES", 0) != 0;
  s.until = Clock::now() + std::chrono::seconds(seconds);
  unsigned phase = 0;
  Together together(static_cast<std::ptrdiff_t>(threads), Census{&s, &phase});
  std::thread changer(limit_changer, std::ref(s), change_ms);
  std::atomic<unsigned> running{threads};
  std::vector<Buffers> buffers(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      worker(s, t, together, buffers[t]);
      --running;
    });
  progress(s, running, stall_s);
  for (auto& th : pool) th.join();
  s.done = true;
  changer.join();
  CAPTURE(threads, seconds, s.bytes.load(), s.last_closes.load());
  for (const std::string& what : s.first_failures) UNSCOPED_INFO(what);
  CHECK(s.failures == 0);
  CHECK(s.last_closes > 0);
  CHECK(hipFileUseCount() == 0);
  WARN("stress: " << threads << " threads, " << seconds << " s, " << (s.bytes >> 20) << " MiB checked, "
                  << s.last_closes << " last closes");
}
