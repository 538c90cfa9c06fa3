// SPDX-License-Identifier: MIT
// NVIDIA fastpath: libcufile (GPUDirect Storage), loaded with dlopen at driver open, never at
// library load and never at build time (no cufile.h is needed: the few types and entry points
// used are declared below with cuFile's documented C ABI).
//
// When is it used? cuFile has its own compat mode (POSIX into a bounce buffer), in which
// cuFileHandleRegister succeeds without any GPU-direct path; handing I/O to it would only replace
// our parallel engine with a slower one. So the fastpath is loaded only when GDS is reported:
//   - /proc/driver/nvidia-fs exists (the nvidia-fs kernel module), or
//   - the PCI P2PDMA mode is asked for (hipFileParamUsePcip2pdma / use_pcip2pdma, cuFile ≥ 1.14
//     serves it without nvidia-fs),
// and cuFileDriverOpen succeeds. cuFileDriverGetProperties is not used: its struct layout has
// changed between releases and the two signals above are what decides GDS-vs-compat.
// Per file, cuFileHandleRegister on the library's O_DIRECT fd must succeed; otherwise the file
// is engine-only. Every decision is logged at debug level.
#include "fastpath/fastpath.hpp"

#if defined(__HIP_PLATFORM_NVIDIA__)

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>

#include "engine/log.hpp"

namespace hipfile::fastpath {

namespace {

// --- cuFile C ABI (cufile.h), declared here --------------------------------------------------
struct CUfileError_t {
  int err;     // CUfileOpError; 0 = CU_FILE_SUCCESS, numbers equal hipFileOpError_t
  int cu_err;  // CUresult
};
struct CUfileDescr_t {
  int type;  // CUfileFileHandleType; CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1
  union {
    int fd;
    void* handle;
  } handle;
  const void* fs_ops;
};
using CUfileHandle_t = void*;
constexpr int kHandleTypeOpaqueFd = 1;

using DriverOpenFn = CUfileError_t (*)();
using DriverCloseFn = CUfileError_t (*)();
using HandleRegisterFn = CUfileError_t (*)(CUfileHandle_t*, CUfileDescr_t*);
using HandleDeregisterFn = void (*)(CUfileHandle_t);
using ReadFn = ssize_t (*)(CUfileHandle_t, void*, size_t, off_t, off_t);
using WriteFn = ssize_t (*)(CUfileHandle_t, const void*, size_t, off_t, off_t);

// The loaded library. Shared by the fastpath and every file registration, so that
// cuFileDriverClose and dlclose run only after the last cuFileHandleDeregister.
struct Library {
  void* dl = nullptr;
  DriverOpenFn driver_open = nullptr;
  DriverCloseFn driver_close = nullptr;
  HandleRegisterFn handle_register = nullptr;
  HandleDeregisterFn handle_deregister = nullptr;
  ReadFn read = nullptr;
  WriteFn write = nullptr;
  bool opened = false;

  ~Library() {
    if (opened && driver_close) (void)driver_close();
    if (dl) dlclose(dl);
  }
};

template <class F>
bool resolve(void* dl, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(dl, name));
  return out != nullptr;
}

// ssize_t return convention of cuFileRead/Write: bytes, -1 with errno, or -CUfileOpError.
IoResult from_return(ssize_t n, int saved_errno) {
  IoResult r;
  if (n >= 0) {
    r.bytes = n;
    return r;
  }
  if (n == -1) {
    r.status = engine::Status::of_errno(saved_errno != 0 ? saved_errno : EIO);
    return r;
  }
  const auto op = static_cast<hipFileOpError_t>(-n);
  // "Cannot do this I/O here" answers: the engine can serve them (ENODEV in select.cpp's terms).
  if (op == hipFileDriverNotInitialized || op == hipFilePlatformNotSupported || op == hipFileIONotSupported ||
      op == hipFileDeviceNotSupported)
    r.status = engine::Status::of_errno(ENODEV);
  else
    r.status = engine::Status::of(op);
  return r;
}

class Cufile final : public Fastpath {
 public:
  explicit Cufile(std::shared_ptr<Library> lib) : lib_(std::move(lib)) {}
  const char* name() const noexcept override { return "cufile"; }
  hipFileStatsPath_t stats_path() const noexcept override { return hipFileStatsPathCufile; }

  std::shared_ptr<void> attach(const File& file) override {
    if (file.direct_fd < 0) {
      HIPFILE_LOG(Debug, "cufile: fd %d has no O_DIRECT descriptor", file.client_fd);
      return nullptr;
    }
    CUfileDescr_t descr{};
    descr.type = kHandleTypeOpaqueFd;
    descr.handle.fd = file.direct_fd;
    descr.fs_ops = nullptr;
    CUfileHandle_t h = nullptr;
    CUfileError_t e = lib_->handle_register(&h, &descr);
    if (e.err != 0 || h == nullptr) {
      HIPFILE_LOG(Debug, "cufile: cuFileHandleRegister(fd %d) refused (err %d, cu_err %d)", file.client_fd, e.err,
                  e.cu_err);
      return nullptr;
    }
    // The registration lives as long as the File: its deleter deregisters (and keeps the library
    // loaded until then).
    std::shared_ptr<Library> lib = lib_;
    return std::shared_ptr<void>(h, [lib](void* p) { lib->handle_deregister(p); });
  }

  bool usable_for(const File& file, gpu::MemKind kind, int, const void*, off_t, std::size_t) const override {
    return kind == gpu::MemKind::Device && file.fastpath_state != nullptr;
  }

  IoResult read(const File& file, void* mem, std::size_t size, off_t offset) override {
    errno = 0;
    ssize_t n = lib_->read(file.fastpath_state.get(), mem, size, offset, 0);
    return from_return(n, errno);
  }
  IoResult write(const File& file, const void* mem, std::size_t size, off_t offset) override {
    errno = 0;
    ssize_t n = lib_->write(file.fastpath_state.get(), mem, size, offset, 0);
    return from_return(n, errno);
  }

 private:
  std::shared_ptr<Library> lib_;
};

}  // namespace

std::shared_ptr<Fastpath> load_cufile(const Config& config) {
  const bool nvfs = ::access("/proc/driver/nvidia-fs", F_OK) == 0;
  if (!nvfs && !config.use_pcip2pdma) {
    HIPFILE_LOG(Debug, "cufile: not loaded (no /proc/driver/nvidia-fs and P2PDMA not requested); "
                       "every I/O uses the engine");
    return nullptr;
  }
  auto lib = std::make_shared<Library>();
  lib->dl = dlopen("libcufile.so.0", RTLD_NOW | RTLD_LOCAL);
  if (lib->dl == nullptr) {
    const char* why = dlerror();
    HIPFILE_LOG(Debug, "cufile: libcufile.so.0 not loadable (%s); every I/O uses the engine", why ? why : "?");
    return nullptr;
  }
  // cufile.h #defines cuFileDriverClose to cuFileDriverClose_v2 in recent releases.
  if (!resolve(lib->dl, "cuFileDriverClose_v2", lib->driver_close)) resolve(lib->dl, "cuFileDriverClose", lib->driver_close);
  if (!resolve(lib->dl, "cuFileDriverOpen", lib->driver_open) || lib->driver_close == nullptr ||
      !resolve(lib->dl, "cuFileHandleRegister", lib->handle_register) ||
      !resolve(lib->dl, "cuFileHandleDeregister", lib->handle_deregister) || !resolve(lib->dl, "cuFileRead", lib->read) ||
      !resolve(lib->dl, "cuFileWrite", lib->write)) {
    HIPFILE_LOG(Debug, "cufile: libcufile.so.0 lacks an entry point; every I/O uses the engine");
    return nullptr;
  }
  CUfileError_t e = lib->driver_open();
  if (e.err != 0) {
    HIPFILE_LOG(Debug, "cufile: cuFileDriverOpen failed (err %d, cu_err %d); every I/O uses the engine", e.err,
                e.cu_err);
    return nullptr;
  }
  lib->opened = true;
  HIPFILE_LOG(Debug, "cufile: loaded (%s); device I/O on registered files may go GPU-direct",
              nvfs ? "nvidia-fs present" : "P2PDMA requested");
  return std::make_shared<Cufile>(std::move(lib));
}

}  // namespace hipfile::fastpath

#else  // not an NVIDIA build: compiled out

namespace hipfile::fastpath {
std::shared_ptr<Fastpath> load_cufile(const Config&) { return nullptr; }
}  // namespace hipfile::fastpath

#endif
