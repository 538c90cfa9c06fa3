// SPDX-License-Identifier: MIT
// libFuzzer target for the C API (built with clang when -Dfuzz=true, platform=cpu). Each input is
// a small program of up to 48 calls: driver open/close, handle and buffer registration of
// prepared descriptors and memory, sync/async/batch I/O with sizes and offsets from the input
// (huge and negative ones included), parameters with arbitrary enum values, statistics, and
// hip-cpu faults armed for the next call. After every call the guard bytes around each buffer
// must be intact; a crash, a sanitizer report or a changed guard byte is a finding. Everything
// is torn down at the end of the input, so inputs are independent.
#include <fcntl.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <hip/hip_cpu.h>
#include <hip/hip_runtime_api.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// c_calls.c: enum parameters passed as C passes them.
extern "C" {
hipFileError_t fuzz_set_size_param(int p, size_t v);
hipFileError_t fuzz_get_size_param(int p, size_t* v);
hipFileError_t fuzz_set_bool_param(int p, bool v);
hipFileError_t fuzz_get_bool_param(int p, bool* v);
const char* fuzz_op_error_string(int e);
}

namespace {

constexpr std::size_t kFileSize = 1u << 20;
constexpr std::size_t kBuf = 256u << 10;  // each buffer's usable bytes
constexpr std::size_t kGuard = 4096;      // guard bytes on each side
constexpr int kMaxCalls = 48;

// The input, read as integers; past its end every read is 0.
struct Input {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() { return n ? (--n, *p++) : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | u8();
    return v;
  }
  std::int64_t i64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | u8();
    return static_cast<std::int64_t>(v);
  }
  // A size or offset: mostly small, sometimes anything (huge, negative, near the limits).
  std::int64_t number(std::int64_t small) {
    switch (u8() % 4) {
      case 0: return i64();
      case 1: return INT64_MAX - (u32() % 65536);
      default: return static_cast<std::int64_t>(u32() % static_cast<std::uint32_t>(small + 1));
    }
  }
};

// Memory with guard bytes: host pageable, pinned, managed, or device (checked through hipMemcpy).
struct Buffer {
  enum Kind { Pageable, Pinned, Managed, Device } kind;
  std::byte* raw = nullptr;  // guard + kBuf + guard
  std::byte* data() const { return raw + kGuard; }
  bool cpu() const { return kind != Device; }
};

struct World {
  std::string path;
  int fds[5] = {-1, -1, -1, -1, -1};  // RDWR, RDONLY, O_APPEND, O_PATH, directory
  Buffer bufs[4];
  hipStream_t stream = nullptr;
};

World* g_world = nullptr;

void fill_guards(const Buffer& b) {
  std::vector<std::byte> g(kGuard, std::byte{0xa5});
  for (std::byte* at : {b.raw, b.raw + kGuard + kBuf}) {
    if (b.cpu()) std::memcpy(at, g.data(), kGuard);
    else if (hipMemcpy(at, g.data(), kGuard, hipMemcpyHostToDevice) != hipSuccess) std::abort();
  }
}

void check_guards(const Buffer& b) {
  std::vector<std::byte> g(kGuard);
  for (std::byte* at : {b.raw, b.raw + kGuard + kBuf}) {
    if (b.cpu()) std::memcpy(g.data(), at, kGuard);
    else if (hipMemcpy(g.data(), at, kGuard, hipMemcpyDeviceToHost) != hipSuccess) std::abort();
    for (std::byte x : g)
      if (x != std::byte{0xa5}) {
        std::fprintf(stderr, "guard byte changed around buffer kind %d\n", static_cast<int>(b.kind));
        __builtin_trap();
      }
  }
}

void setup_world() {
  static World w;
  const char* dir = std::getenv("HIPFILE_TEST_DIR");
  w.path = std::string(dir ? dir : "/tmp") + "/hipfile-fuzz-" + std::to_string(::getpid());
  int fd = ::open(w.path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::ftruncate(fd, kFileSize) != 0) std::abort();
  ::close(fd);
  w.fds[0] = ::open(w.path.c_str(), O_RDWR | O_CLOEXEC);
  w.fds[1] = ::open(w.path.c_str(), O_RDONLY | O_CLOEXEC);
  w.fds[2] = ::open(w.path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  w.fds[3] = ::open(w.path.c_str(), O_PATH | O_CLOEXEC);
  w.fds[4] = ::open(dir ? dir : "/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const std::size_t total = kBuf + 2 * kGuard;
  w.bufs[0] = {Buffer::Pageable, static_cast<std::byte*>(std::aligned_alloc(4096, total))};
  void* p = nullptr;
  if (hipHostMalloc(&p, total, 0) != hipSuccess) std::abort();
  w.bufs[1] = {Buffer::Pinned, static_cast<std::byte*>(p)};
  if (hipMallocManaged(&p, total, hipMemAttachGlobal) != hipSuccess) std::abort();
  w.bufs[2] = {Buffer::Managed, static_cast<std::byte*>(p)};
  if (hipMalloc(&p, total) != hipSuccess) std::abort();
  w.bufs[3] = {Buffer::Device, static_cast<std::byte*>(p)};
  for (const Buffer& b : w.bufs) fill_guards(b);
  if (hipStreamCreate(&w.stream) != hipSuccess) std::abort();
  g_world = &w;
}

const char* const kFaultApis[] = {"hipMemcpyAsync", "hipEventSynchronize", "hipStreamSynchronize", "hipHostMalloc",
                                  "hipEventRecord", "hipLaunchHostFunc", "hipStreamWaitValue32", "hipHostRegister",
                                  "hipPointerGetAttributes", "hipMemGetAddressRange", "hipStreamCreateWithFlags",
                                  "hipPointerGetAttribute", "hipEventQuery"};
const hipError_t kFaultErrors[] = {hipErrorUnknown, hipErrorOutOfMemory, hipErrorNotSupported, hipErrorLaunchFailure};

// The state one input builds up, torn down at its end.
struct Run {
  World& w;
  Input in;
  std::vector<hipFileHandle_t> handles;
  std::vector<const void*> registered;
  bool fault_armed = false;

  hipFileHandle_t handle() {
    const std::uint8_t k = in.u8();
    if (handles.empty() || k % 8 == 7) return reinterpret_cast<hipFileHandle_t>(static_cast<std::uintptr_t>(in.i64()));
    return handles[k % handles.size()];
  }
  Buffer& buffer() { return w.bufs[in.u8() % 4]; }
  // A region inside the buffer for memory the library cannot bound (pageable), anything for the
  // rest (pinned, managed and device allocations): the library must refuse what runs past them.
  void region(const Buffer& b, std::size_t& size, hoff_t& boff) {
    if (b.kind == Buffer::Pageable) {
      size = in.u32() % (kBuf + 1);
      boff = static_cast<hoff_t>(in.u32() % (kBuf - size + 1));
      return;
    }
    size = static_cast<std::size_t>(in.number(kBuf));
    boff = in.number(kBuf);
    // The allocation holds the guards too (it ends at data() + kBuf + kGuard), so the library may
    // rightly move bytes up to there, and check_guards would call that an overrun. A range ending
    // inside the trailing guard is moved past the allocation's end instead, where it must be refused.
    if (boff >= 0 && static_cast<std::size_t>(boff) <= kBuf + kGuard && size <= kBuf + kGuard) {
      const std::size_t end = static_cast<std::size_t>(boff) + size;
      if (end > kBuf && end <= kBuf + kGuard) size += kGuard;
    }
  }

  void call() {
    switch (in.u8() % 16) {
      case 0: (void)hipFileDriverOpen(); break;
      case 1: (void)hipFileDriverClose(); break;
      case 2: {
        hipFileDescr_t d{};
        std::uint8_t which = in.u8();
        int type = which & 0x80 ? static_cast<int>(in.u32()) : hipFileHandleTypeOpaqueFD;
        std::memcpy(&d.type, &type, sizeof type);
        d.handle.fd = which % 7 < 5 ? w.fds[which % 7] : (which % 7 == 5 ? -1 : 1000);
        hipFileHandle_t h = nullptr;
        if (hipFileHandleRegister(&h, &d).err == hipFileSuccess) handles.push_back(h);
        break;
      }
      case 3: hipFileHandleDeregister(handle()); break;
      case 4: {
        Buffer& b = buffer();
        const std::size_t off = in.u32() % (kBuf + 1);
        // Pageable memory cannot be bounded by the library: a registration longer than the memory
        // would be the caller's lie. Device, managed and pinned lengths are checked by it.
        const bool bounded = b.kind != Buffer::Pageable;
        const std::size_t len = !bounded || in.u8() & 1 ? in.u32() % (kBuf - off + 1)
                                                        : static_cast<std::size_t>(in.number(kBuf));
        if (hipFileBufRegister(b.data() + off, len, 0).err == hipFileSuccess) registered.push_back(b.data() + off);
        break;
      }
      case 5: {
        const void* p = registered.empty() ? buffer().data() : registered[in.u8() % registered.size()];
        (void)hipFileBufDeregister(p);
        break;
      }
      case 6:
      case 7: {
        Buffer& b = buffer();
        std::size_t size;
        hoff_t boff;
        region(b, size, boff);
        const hoff_t foff = in.number(2 * kFileSize);
        hipFileHandle_t h = handle();
        if (in.u8() & 1) (void)hipFileRead(h, b.data(), size, foff, boff);
        else (void)hipFileWrite(h, b.data(), size, foff, boff);
        break;
      }
      case 8: {
        Buffer& b = buffer();
        std::size_t size;
        hoff_t boff;
        region(b, size, boff);
        hoff_t foff = in.number(2 * kFileSize);
        ssize_t bytes = 0;
        hipFileHandle_t h = handle();
        hipFileError_t e = in.u8() & 1 ? hipFileReadAsync(h, b.data(), &size, &foff, &boff, &bytes, w.stream)
                                       : hipFileWriteAsync(h, b.data(), &size, &foff, &boff, &bytes, w.stream);
        (void)e;
        clear_fault();
        if (hipStreamSynchronize(w.stream) != hipSuccess) (void)hipGetLastError();  // the params live until here
        break;
      }
      case 9: batch(); break;
      case 10: {
        const auto raw = static_cast<int>(in.u8() & 1 ? in.u32() : in.u8() % 14);
        std::size_t v = 0;
        bool bv = false;
        switch (in.u8() % 4) {
          case 0: (void)fuzz_set_size_param(raw, static_cast<std::size_t>(in.number(1 << 20))); break;
          case 1: (void)fuzz_get_size_param(raw, &v); break;
          case 2: (void)fuzz_set_bool_param(raw, in.u8() & 1); break;
          default: (void)fuzz_get_bool_param(raw, &bv); break;
        }
        break;
      }
      case 11: {
        hipFileDriverProps_t props;
        (void)hipFileDriverGetProperties(&props);
        hipFileStatsL1_t l1;
        (void)hipFileGetStatsExL1(&l1, sizeof l1);  // our counters; hipFileGetStatsL1 is 0.5's ABI
        (void)hipFileSetStatsLevel(static_cast<int>(in.u8() % 5) - 1);
        break;
      }
      case 12: {
        if (fuzz_op_error_string(static_cast<int>(in.u32())) == nullptr) __builtin_trap();
        break;
      }
      case 13: arm_fault(); return;  // for the next call
      case 14: (void)hipFileUseCount(); break;
      default: (void)hipFileStreamRegister(w.stream, in.u8()); (void)hipFileStreamDeregister(w.stream); break;
    }
    clear_fault();
  }

  void arm_fault() {
    clear_fault();
    hipcpuInjectFault(kFaultApis[in.u8() % (sizeof kFaultApis / sizeof *kFaultApis)], 1 + in.u8() % 4,
                      1 + in.u8() % 2, kFaultErrors[in.u8() % (sizeof kFaultErrors / sizeof *kFaultErrors)]);
    fault_armed = true;
  }
  void clear_fault() {
    if (fault_armed) hipcpuClearFaults();
    fault_armed = false;
  }

  void batch() {
    hipFileBatchHandle_t b = nullptr;
    if (hipFileBatchIOSetUp(&b, in.u8() % 132).err != hipFileSuccess) return;
    const unsigned nr = in.u8() % 6;
    std::vector<hipFileIOParams_t> ios(nr);
    for (auto& io : ios) {
      const int mode = in.u8() % 8 == 0 ? static_cast<int>(in.u32()) : hipFileBatch;
      const int opcode = in.u8() % 8 == 0 ? static_cast<int>(in.u32()) : in.u8() % 2;
      std::memcpy(&io.mode, &mode, sizeof mode);
      std::memcpy(&io.opcode, &opcode, sizeof opcode);
      Buffer& buf = buffer();
      std::size_t size;
      hoff_t boff;
      region(buf, size, boff);
      io.fh = handle();
      io.u.batch.devPtr_base = buf.data();
      io.u.batch.size = size;
      io.u.batch.devPtr_offset = boff;
      io.u.batch.file_offset = in.number(2 * kFileSize);
    }
    (void)hipFileBatchIOSubmit(b, nr, ios.data(), 0);
    clear_fault();
    std::vector<hipFileIOEvents_t> ev(8);
    unsigned got = 8;
    timespec t{0, static_cast<long>(in.u8()) * 1000};
    (void)hipFileBatchIOGetStatus(b, in.u8() % 9, &got, ev.data(), in.u8() & 1 ? &t : nullptr);
    if (in.u8() & 1) (void)hipFileBatchIOCancel(b);
    hipFileBatchIODestroy(b);  // waits for what still runs
  }

  void teardown() {
    clear_fault();
    for (hipFileHandle_t h : handles) hipFileHandleDeregister(h);
    for (const void* p : registered) (void)hipFileBufDeregister(p);
    while (hipFileUseCount() > 0) (void)hipFileDriverClose();
    if (hipDeviceSynchronize() != hipSuccess) (void)hipGetLastError();
    for (const Buffer& b : w.bufs) check_guards(b);
  }
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("HIPFILE_LOG_LEVEL", "ERROR", 1);
  ::setenv("HIPFILE_THREADS", "2", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "64k", 1);  // several chunks per request, small pinned pools
  setup_world();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  World& w = *g_world;
  if (::truncate(w.path.c_str(), kFileSize) != 0) std::abort();  // writes may have grown it
  Run run{w, Input{data, size}, {}, {}, false};
  for (int i = 0; i < kMaxCalls && run.in.n > 0; ++i) {
    run.call();
    for (const Buffer& b : w.bufs) check_guards(b);
  }
  run.teardown();
  return 0;
}
