// SPDX-License-Identifier: MIT
// hipFile 0.5's statistics (hipFileGetStatsL1-L3 in <hipfile.h>): the layouts the successor and
// cuFile use, exact values after known registrations, I/O and batch calls, and the symbol
// versions that keep 0.2's layouts for binaries linked against 0.2.
#include <dlfcn.h>
#include <hipfile/hipfile_stats.h>

#include <cstddef>
#include <cstring>
#include <memory>

#include <hipfile++/batch.hpp>

#include "../c_api/helpers.hpp"

using namespace hipfile::test;

// The successor's layout is cuFile's (CUfileStatsLevel1/2/3_t): sizes and a few offsets pin it.
static_assert(sizeof(hipFileOpCounter_t) == 16);
static_assert(sizeof(hipFileStatsLevel1_t) == 21 * 16 + 22 * 8);
static_assert(offsetof(hipFileStatsLevel1_t, read_bytes) == 6 * 16);
static_assert(offsetof(hipFileStatsLevel1_t, batch_submit_ops) == 6 * 16 + 10 * 8);
static_assert(sizeof(hipFileStatsLevel2_t) == sizeof(hipFileStatsLevel1_t) + 64 * 8);
static_assert(sizeof(hipFilePerGpuStats_t) == HIPFILE_GPU_UUID_LEN + 29 * 8);
static_assert(offsetof(hipFilePerGpuStats_t, writes_bytes) == HIPFILE_GPU_UUID_LEN + 13 * 8);
static_assert(offsetof(hipFilePerGpuStats_t, write_bytes) == offsetof(hipFilePerGpuStats_t, writes_bytes));
static_assert(offsetof(hipFileStatsLevel3_t, num_gpus) == sizeof(hipFileStatsLevel2_t));
static_assert(offsetof(hipFileStatsLevel3_t, per_gpu_stats) == sizeof(hipFileStatsLevel2_t) + 8);
static_assert(sizeof(hipFileStatsLevel3_t) == sizeof(hipFileStatsLevel2_t) + 8 + HIPFILE_MAX_GPUS * sizeof(hipFilePerGpuStats_t));
static_assert(sizeof(hipFileStatsLevel3_t) == 5000);  // cuFile's CUfileStatsLevel3_t
static_assert(HIPFILE_MAX_GPUS == 16);
static_assert(HIPFILE_VERSION_MAJOR == 0 && HIPFILE_VERSION_MINOR >= 5);

namespace {

constexpr hipFileOpError_t ok = hipFileSuccess;
constexpr std::size_t kMiB = 1u << 20, kPage = 4096;

struct Fresh : ClosedDriver {
  explicit Fresh(int level) {
    REQUIRE(hipFileDriverOpen().err == ok);
    REQUIRE(hipFileDriverClose().err == ok);
    REQUIRE(hipFileStatsReset().err == ok);
    REQUIRE(hipFileSetParameterSizeT(hipFileParamProfileStats, static_cast<size_t>(level)).err == ok);
    REQUIRE(hipFileDriverOpen().err == ok);
  }
};

void check_counter(const hipFileOpCounter_t& c, uint64_t want_ok, uint64_t want_err) {
  CHECK(c.ok == want_ok);
  CHECK(c.err == want_err);
}

// Known calls: 2 handle registrations (+1 refused), 1 buffer registration (+1 refused), a 1 MiB
// device write and read, a 4 KiB host read, a failing device read, a batch of two 4 KiB device
// reads, a cancel and a destroy, then every deregistration (+1 of an unknown handle).
void known_calls() {
  TempFile file(kMiB);
  DeviceMem dev(kMiB);
  to_device(dev.get(), pattern(kMiB, 5));
  REQUIRE(hipFileBufRegister(dev.get(), kMiB, 0).err == ok);
  CHECK(hipFileBufRegister(nullptr, kMiB, 0).err == hipFileInvalidValue);
  hipFileDescr_t bad{};
  bad.type = hipFileHandleTypeOpaqueFD;
  bad.handle.fd = -1;
  hipFileHandle_t none = nullptr;
  CHECK(hipFileHandleRegister(&none, &bad).err == hipFileInvalidValue);
  {
    Registered rw(file.path(), O_RDWR);
    REQUIRE(hipFileWrite(rw.handle, dev.get(), kMiB, 0, 0) == static_cast<ssize_t>(kMiB));
    REQUIRE(hipFileRead(rw.handle, dev.get(), kMiB, 0, 0) == static_cast<ssize_t>(kMiB));
    std::vector<std::byte> host(kPage);
    REQUIRE(hipFileRead(rw.handle, host.data(), kPage, 0, 0) == static_cast<ssize_t>(kPage));

    hipFileBatchHandle_t b = nullptr;
    CHECK(hipFileBatchIOSetUp(&b, 0).err == hipFileInvalidValue);
    REQUIRE(hipFileBatchIOSetUp(&b, 2).err == ok);
    hipFileIOParams_t ios[2] = {
        hipfile::batch_op(hipFileBatchRead, rw.handle, dev.get(), kPage, 0, 0, nullptr),
        hipfile::batch_op(hipFileBatchRead, rw.handle, dev.get(), kPage, kPage, kPage, nullptr)};
    REQUIRE(hipFileBatchIOSubmit(b, 2, ios, 0).err == ok);
    unsigned seen = 0;
    while (seen < 2) {
      hipFileIOEvents_t ev[2];
      unsigned nr = 2;
      REQUIRE(hipFileBatchIOGetStatus(b, 1, &nr, ev, nullptr).err == ok);
      for (unsigned i = 0; i < nr; ++i) CHECK(ev[i].status == hipFileComplete);
      seen += nr;
    }
    REQUIRE(hipFileBatchIOCancel(b).err == ok);
    hipFileBatchIODestroy(b);
  }
  {
    Registered wo(file.path(), O_WRONLY);
    REQUIRE(hipFileRead(wo.handle, dev.get(), kPage, 0, 0) == -1);  // EBADF
  }
  hipFileHandleDeregister(reinterpret_cast<hipFileHandle_t>(0x1234));
  REQUIRE(hipFileBufDeregister(dev.get()).err == ok);
}

std::unique_ptr<hipFileStatsLevel3_t> l3() {
  auto s = std::make_unique<hipFileStatsLevel3_t>();
  REQUIRE(hipFileGetStatsL3(s.get()).err == ok);
  return s;
}

}  // namespace

TEST_CASE("hipFileGetStatsL1 counts I/O, registrations and batch calls as hipFile 0.5 does", "[stats05]") {
  Fresh fresh(1);
  known_calls();
  hipFileStatsLevel1_t s{};
  REQUIRE(hipFileGetStatsL1(&s).err == ok);
  check_counter(s.read_ops, 4, 1);  // device, host and two batch reads; the EBADF one
  check_counter(s.write_ops, 1, 0);
  CHECK(s.read_bytes == kMiB + 3 * kPage);
  CHECK(s.write_bytes == kMiB);
  check_counter(s.hdl_register_ops, 2, 1);
  check_counter(s.hdl_deregister_ops, 2, 1);
  check_counter(s.buf_register_ops, 1, 1);
  check_counter(s.buf_deregister_ops, 1, 0);
  check_counter(s.batch_setup_ops, 1, 1);
  check_counter(s.batch_submit_ops, 1, 0);
  check_counter(s.batch_enqueued_ops, 2, 0);
  check_counter(s.batch_total_submit_ops, 2, 0);
  check_counter(s.batch_complete_ops, 2, 0);
  check_counter(s.batch_cancel_ops, 1, 0);
  check_counter(s.batch_destroy_ops, 1, 0);
  check_counter(s.batch_p2p_submit_ops, 0, 0);
  CHECK(s.read_lat_sum_us > 0);
  CHECK(s.read_lat_avg_us == s.read_lat_sum_us / 5);
  CHECK(s.write_lat_avg_us == s.write_lat_sum_us);
  CHECK(s.read_bw_bytes_per_sec > 0);
  CHECK(s.read_ops_per_sec > 0);

  // The same numbers in L2's and L3's embedded copies; reset zeroes them all.
  auto all = l3();
  CHECK(all->detailed.basic.read_bytes == s.read_bytes);
  CHECK(all->detailed.basic.hdl_register_ops.ok == 2);
  REQUIRE(hipFileStatsReset().err == ok);
  REQUIRE(hipFileGetStatsL1(&s).err == ok);
  CHECK(s.read_ops.ok == 0);
  CHECK(s.hdl_register_ops.ok == 0);
  CHECK(s.batch_setup_ops.err == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("hipFileGetStatsL3 gives per-GPU figures at level 1, as 0.5's consumers expect", "[stats05]") {
  Fresh fresh(1);
  known_calls();
  auto s = l3();
  int devices = 0;
  REQUIRE(hipGetDeviceCount(&devices) == hipSuccess);
  CHECK(s->num_gpus == static_cast<uint32_t>(devices < HIPFILE_MAX_GPUS ? devices : HIPFILE_MAX_GPUS));
  const hipFilePerGpuStats_t& g = s->per_gpu_stats[0];
  CHECK(g.read_bytes == kMiB + 2 * kPage);  // the host read is on no device
  CHECK(g.n_total_reads == 4);
  CHECK(g.n_reads_err == 1);
  CHECK(g.n_posix_reads == 4);  // the staging engine
  CHECK(g.n_nvfs_reads == 0);
  CHECK(g.writes_bytes == kMiB);
  CHECK(g.write_bytes == kMiB);
  CHECK(g.n_total_writes == 1);
  CHECK(g.n_posix_writes == 1);
  CHECK(g.n_writes_err == 0);
  CHECK(g.read_duration_us > 0);
  CHECK(g.read_bw_bytes_per_sec > 0);
  for (int d = 1; d < HIPFILE_MAX_GPUS; ++d) {
    CAPTURE(d);
    CHECK(s->per_gpu_stats[d].n_total_reads == 0);
    CHECK(s->per_gpu_stats[d].read_bytes == 0);
  }
  // Size histograms need level 2.
  for (int k = 0; k < 32; ++k) CHECK(s->detailed.read_size_kb_hist[k] == 0);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("hipFileGetStatsL2 counts request sizes in KiB powers of two at level 2", "[stats05]") {
  Fresh fresh(2);
  known_calls();
  hipFileStatsLevel2_t s{};
  REQUIRE(hipFileGetStatsL2(&s).err == ok);
  CHECK(s.read_size_kb_hist[10] == 1);  // 1 MiB = 2^10 KiB
  CHECK(s.read_size_kb_hist[2] == 3);   // 4 KiB: the host read and the two batch reads
  CHECK(s.read_size_kb_hist[0] == 1);   // the failed read moved nothing
  CHECK(s.write_size_kb_hist[10] == 1);
  uint64_t reads = 0, writes = 0;
  for (int k = 0; k < 32; ++k) {
    reads += s.read_size_kb_hist[k];
    writes += s.write_size_kb_hist[k];
  }
  CHECK(reads == 5);
  CHECK(writes == 1);
  CHECK(s.basic.read_ops.ok == 4);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("hipFile 0.5 statistics bad input", "[stats05]") {
  CHECK(hipFileGetStatsL1(nullptr).err == hipFileInvalidValue);
  CHECK(hipFileGetStatsL2(nullptr).err == hipFileInvalidValue);
  CHECK(hipFileGetStatsL3(nullptr).err == hipFileInvalidValue);
  CHECK(hipFileUseCount() == 0);  // never opens the driver
}

using OldL1 = hipFileError_t (*)(hipFileStatsL1_t*);
using OldL3 = hipFileError_t (*)(hipFileStatsL3_t*);
using NewL1 = hipFileError_t (*)(hipFileStatsLevel1_t*);

TEST_CASE("0.2's layout stays behind symbol version HIPFILE_0; new links get HIPFILE_0.5", "[stats05]") {
  Fresh fresh(1);
  known_calls();
  void* self = dlopen(nullptr, RTLD_NOW);
  REQUIRE(self != nullptr);
  auto old_l1 = reinterpret_cast<OldL1>(dlvsym(self, "hipFileGetStatsL1", "HIPFILE_0"));
  auto new_l1 = reinterpret_cast<NewL1>(dlvsym(self, "hipFileGetStatsL1", "HIPFILE_0.5"));
  REQUIRE(old_l1 != nullptr);
  REQUIRE(new_l1 != nullptr);
  CHECK(reinterpret_cast<void*>(new_l1) == reinterpret_cast<void*>(&hipFileGetStatsL1));
  CHECK(reinterpret_cast<void*>(old_l1) != reinterpret_cast<void*>(new_l1));

  // An old binary's buffer is exactly 0.2's struct: a guard after it must stay untouched.
  struct {
    hipFileStatsL1_t s;
    unsigned char guard[512];
  } buf;
  std::memset(&buf, 0x5a, sizeof buf);
  REQUIRE(old_l1(&buf.s).err == ok);
  CHECK(buf.s.version == HIPFILE_STATS_VERSION);
  CHECK(buf.s.path[hipFileStatsPathEngine][hipFileStatsOpWrite].bytes == kMiB);
  for (unsigned char c : buf.guard) CHECK(c == 0x5a);
  // 0.2's hipFileStatsL3_t is version 1's: the `source` that version 2 appended is not written.
  auto old_l3 = reinterpret_cast<OldL3>(dlvsym(self, "hipFileGetStatsL3", "HIPFILE_0"));
  REQUIRE(old_l3 != nullptr);
  constexpr std::size_t v1 = offsetof(hipFileStatsL3_t, source);
  auto big = std::make_unique<unsigned char[]>(sizeof(hipFileStatsL3_t));
  std::memset(big.get(), 0x5a, sizeof(hipFileStatsL3_t));
  REQUIRE(old_l3(reinterpret_cast<hipFileStatsL3_t*>(big.get())).err == ok);
  CHECK(reinterpret_cast<hipFileStatsL3_t*>(big.get())->l2.l1.path[hipFileStatsPathEngine][hipFileStatsOpWrite].bytes == kMiB);
  for (std::size_t i = v1; i < sizeof(hipFileStatsL3_t); ++i) CHECK(big[i] == 0x5a);
  hipFileStatsLevel1_t now{};
  REQUIRE(new_l1(&now).err == ok);
  CHECK(now.write_bytes == kMiB);
  dlclose(self);
  REQUIRE(hipFileDriverClose().err == ok);
}
