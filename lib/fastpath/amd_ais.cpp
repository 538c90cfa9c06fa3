// SPDX-License-Identifier: MIT
// AMD fastpath: hipAmdFileRead/hipAmdFileWrite (AMD Infinity Storage, ROCm >= 7.2: a KFD
// PCIe P2PDMA direct I/O into VRAM). The entry points are not exported; they are resolved at run
// time through hipGetProcAddress, itself looked up with dlsym so that the build needs no HIP that
// declares it (ROCm 5.x headers do not), with a plain dlsym of the entry point as a last resort.
//
// Criteria (upstream's, simplified; doc/fastpaths.md): device memory; the file has an O_DIRECT
// descriptor; it is a block device, or a regular file on ext4 or xfs (any file system with
// HIPFILE_UNSUPPORTED_FILE_SYSTEMS=true; ext4's data=ordered is not checked); offset, size and
// address on max(4096, the file's direct-I/O alignment) (select.cpp).
#include "fastpath/fastpath.hpp"

#if defined(__HIP_PLATFORM_AMD__)

#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "io/config.hpp"
#include "sys/log.hpp"

namespace hipfile::fastpath {

namespace {

union AmdFileHandle {
  void* handle;
  int fd;
  std::uint8_t pad[8];
};
using AmdFileIoFn = hipError_t (*)(AmdFileHandle, void*, std::uint64_t, std::int64_t, std::uint64_t*, std::int32_t*);
// hipError_t hipGetProcAddress(const char*, void**, int hipVersion, uint64_t flags,
//                              hipDriverProcAddressQueryResult* status)   (HIP >= 6.2)
using GetProcAddressFn = hipError_t (*)(const char*, void**, int, std::uint64_t, int*);

constexpr long kExt4Magic = 0xEF53;
constexpr long kXfsMagic = 0x58465342;

void* find(const char* symbol) {
  auto gpa = reinterpret_cast<GetProcAddressFn>(dlsym(RTLD_DEFAULT, "hipGetProcAddress"));
  if (gpa != nullptr) {
    int version = 0;
    (void)gpu::runtime_version(version);
    void* fn = nullptr;
    int query = 0;
    if (gpa(symbol, &fn, version, 0, &query) == hipSuccess && fn != nullptr) return fn;
  }
  return dlsym(RTLD_DEFAULT, symbol);
}

IoResult from_call(hipError_t e, std::uint64_t bytes, std::int32_t status) {
  IoResult r;
  r.bytes = static_cast<ssize_t>(bytes);
  if (status != 0) r.status = engine::Status::of_errno(status < 0 ? -status : status);  // errno from the KFD
  else if (e != hipSuccess) r.status = engine::Status::of_hip(e);
  return r;
}

class AmdAis final : public Fastpath {
 public:
  AmdAis(AmdFileIoFn rd, AmdFileIoFn wr, bool any_fs) : read_(rd), write_(wr), any_fs_(any_fs) {}
  const char* name() const noexcept override { return "amd-ais"; }
  Kind kind() const noexcept override { return Kind::AmdAis; }

  std::shared_ptr<void> attach(const File& file) override {
    if (file.direct_fd < 0) {
      HIPFILE_LOG(Debug, "amd-ais: fd %d has no O_DIRECT descriptor", file.client_fd);
      return nullptr;
    }
    struct stat st{};
    if (::fstat(file.direct_fd, &st) != 0) return nullptr;
    if (!S_ISBLK(st.st_mode)) {
      struct statfs fs{};
      if (!S_ISREG(st.st_mode) || ::fstatfs(file.direct_fd, &fs) != 0) return nullptr;
      const long magic = static_cast<long>(fs.f_type);
      if (!any_fs_ && magic != kExt4Magic && magic != kXfsMagic) {
        HIPFILE_LOG(Debug, "amd-ais: fd %d is on file system 0x%lx (not ext4/xfs; HIPFILE_UNSUPPORTED_FILE_SYSTEMS "
                           "allows it)", file.client_fd, magic);
        return nullptr;
      }
    }
    // No registration exists on this path; a non-null marker says "eligible".
    return std::make_shared<int>(file.direct_fd);
  }

  bool usable_for(const File& file, gpu::MemKind kind, int, const void*, off_t, std::size_t) const override {
    return kind == gpu::MemKind::Device && file.fastpath_state != nullptr && file.direct_fd >= 0;
  }

  IoResult read(const File& file, void* mem, std::size_t size, off_t offset) override {
    return call(read_, file, mem, size, offset);
  }
  IoResult write(const File& file, const void* mem, std::size_t size, off_t offset) override {
    return call(write_, file, const_cast<void*>(mem), size, offset);
  }

 private:
  static IoResult call(AmdFileIoFn fn, const File& file, void* mem, std::size_t size, off_t offset) {
    AmdFileHandle h{};
    h.fd = file.direct_fd;
    std::uint64_t bytes = 0;
    std::int32_t status = 0;
    hipError_t e = fn(h, mem, size, offset, &bytes, &status);
    return from_call(e, bytes, status);
  }
  AmdFileIoFn read_;
  AmdFileIoFn write_;
  bool any_fs_;
};

}  // namespace

std::shared_ptr<Fastpath> load_amd_ais(const Config& config, Report& report) {
  report = Report{};
  auto rd = reinterpret_cast<AmdFileIoFn>(find("hipAmdFileRead"));
  auto wr = reinterpret_cast<AmdFileIoFn>(find("hipAmdFileWrite"));
  if (rd == nullptr || wr == nullptr) {
    report.reason = "hipAmdFileRead/Write not found in the HIP runtime (needs ROCm >= 7.2); every I/O uses the engine";
    return nullptr;
  }
  const bool any_fs = config.unsupported_file_systems;
  report.fastpath = "amd-ais";
  report.gds = true;
  report.reason = std::string("hipAmdFileRead/Write resolved; aligned device I/O on ") +
                  (any_fs ? "any file system" : "ext4/xfs files and block devices") + " may go GPU-direct";
  return std::make_shared<AmdAis>(rd, wr, any_fs);
}

}  // namespace hipfile::fastpath

#else  // not an AMD build: compiled out

namespace hipfile::fastpath {
std::shared_ptr<Fastpath> load_amd_ais(const Config&, Report& report) {
  report = Report{};
  report.reason = "AMD AIS exists only on amd builds";
  return nullptr;
}
}  // namespace hipfile::fastpath

#endif
