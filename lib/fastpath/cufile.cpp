// SPDX-License-Identifier: MIT
// NVIDIA fastpath: libcufile (GPUDirect Storage), loaded with dlopen at driver open, never at
// library load and never at build time (no cufile.h is needed: the few types and entry points
// used are declared below with cuFile's documented C ABI). The file is compiled on every
// platform: it needs only dlopen, so the cpu test suite can point it at a fake libcufile.
//
// Which library: HIPFILE_CUFILE_LIBRARY (Config::cufile_library) when set, on any build;
// otherwise, on nvidia builds only, the usual names (kSearch). Other builds load no cuFile.
//
// When is it used? cuFile has its own compat mode (POSIX into a bounce buffer), in which
// cuFileDriverOpen and cuFileHandleRegister succeed without any GPU-direct path; handing I/O to
// it would only replace our parallel engine with a slower one. So after cuFileDriverOpen the
// driver's properties are read, and the fastpath is kept only when GDS is reported:
//   - /proc/driver/nvidia-fs exists (the nvidia-fs kernel module), or
//   - cuFile reports an nvidia-fs version (nvfs.major_version != 0), or
//   - PCI P2PDMA is asked for (hipFileParamUsePcip2pdma) and cuFile reports NVMe P2P support.
// Otherwise the driver is closed again (the library stays loaded: RTLD_NODELETE, never unloaded),
// and the engine serves all I/O.
// With its own search (no HIPFILE_CUFILE_LIBRARY), the library is not even loaded where the kernel
// has neither nvidia-fs nor P2PDMA is asked for (gds_kernel_support): loading and opening
// libcufile was most of a first driver open there, for a fastpath it would then close again.
// Per file, cuFileHandleRegister on the library's O_DIRECT fd must succeed; otherwise the file
// is engine-only. Every decision is logged at debug level and published in the fastpath report.
#include "fastpath/fastpath.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sys/log.hpp"

namespace hipfile::fastpath {

namespace {

// --- cuFile C ABI (cufile.h), declared here --------------------------------------------------
struct CUfileError_t {
  int err;     // CUfileOpError; 0 = CU_FILE_SUCCESS, numbers equal engine::Error
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

// The leading fields of CUfileDrvProps_t. They have kept this layout in every release; later
// fields have not, which is why the call below gets an oversized buffer and reads only these.
struct CUfileDrvPropsHead {
  struct {
    unsigned major_version;  // of nvidia-fs; 0 when the module is absent
    unsigned minor_version;
    std::size_t poll_thresh_size;
    std::size_t max_direct_io_size;
    unsigned dstatusflags;  // CUfileDriverStatusFlags: bit n = support for target type n
    unsigned dcontrolflags;
  } nvfs;
  unsigned fflags;
};
// CU_FILE_NVME_P2P_SUPPORTED: bit 11 of dstatusflags (value 11 in CUfileDriverStatusFlags).
// Recent cuFile documentation marks it deprecated; should a release stop setting it, a
// P2PDMA-only machine stays on the engine, which is the safe side.
constexpr unsigned kStatusNvmeP2p = 1u << 11;
// Room for every CUfileDrvProps_t so far (under 100 bytes) and any growth.
constexpr std::size_t kPropsBuffer = 4096;

using DriverOpenFn = CUfileError_t (*)();
using DriverCloseFn = CUfileError_t (*)();
using DriverGetPropertiesFn = CUfileError_t (*)(void*);
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
  DriverGetPropertiesFn get_properties = nullptr;
  HandleRegisterFn handle_register = nullptr;
  HandleDeregisterFn handle_deregister = nullptr;
  ReadFn read = nullptr;
  WriteFn write = nullptr;
  bool opened = false;

  ~Library() {
    if (opened && driver_close) (void)driver_close();
    if (dl) dlclose(dl);  // drops the reference only: RTLD_NODELETE keeps the code mapped
  }
};

template <class F>
bool resolve(void* dl, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(dl, name));
  return out != nullptr;
}

std::vector<std::string> candidates(const Config& config) {
  if (!config.cufile_library.empty()) return {config.cufile_library};
#if defined(__HIP_PLATFORM_NVIDIA__)
  // The soname first, as the dynamic linker would find it; then the CUDA toolkit's usual
  // places, which are often not in the linker's path.
  return {"libcufile.so.0", "/usr/local/cuda/lib64/libcufile.so.0",
          "/usr/local/cuda/targets/x86_64-linux/lib/libcufile.so.0"};
#else
  return {};
#endif
}

// The file the dynamic linker actually opened, for the report: a soname says less.
std::string loaded_path(void* dl, const std::string& asked) {
  link_map* map = nullptr;
  if (dlinfo(dl, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0')
    return map->l_name;
  return asked;
}

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  return buf;
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
  using engine::Error;
  const auto op = static_cast<Error>(-n);  // CUfileOpError numbers are the library's Error values
  // "Cannot do this I/O here" answers: the engine can serve them (ENODEV in dispatch.cpp's terms).
  if (op == Error::DriverNotInitialized || op == Error::PlatformNotSupported || op == Error::IONotSupported ||
      op == Error::DeviceNotSupported)
    r.status = engine::Status::of_errno(ENODEV);
  else
    r.status = engine::Status::of(op);
  return r;
}

class Cufile final : public Fastpath {
 public:
  explicit Cufile(std::shared_ptr<Library> lib) : lib_(std::move(lib)) {}
  const char* name() const noexcept override { return "cufile"; }
  Kind kind() const noexcept override { return Kind::Cufile; }

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

namespace {

// Loads the first of `names` that dlopen accepts into `lib`, and resolves its entry points.
// Returns why it could not, or "" when every entry point is there.
std::string load_library(const std::vector<std::string>& names, Library& lib, Report& report) {
  std::string tried, last_error, opened;
  for (const std::string& name : names) {
    // RTLD_NODELETE: libcufile is never unloaded, as KvikIO does. Its threads and atexit
    // handlers (and those of the CUDA libraries it pulls in) must not outlive its code, and a
    // reload at every driver open would run its constructors again.
    lib.dl = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (lib.dl != nullptr) {
      opened = name;
      break;
    }
    const char* why = dlerror();
    tried += (tried.empty() ? "" : ", ") + name;
    last_error = why ? why : "?";
  }
  if (lib.dl == nullptr)
    return "libcufile not loadable (tried " + tried + "; last error: " + last_error + "); every I/O uses the engine";
  report.library = loaded_path(lib.dl, opened);
  // cufile.h #defines cuFileDriverClose to cuFileDriverClose_v2 in recent releases.
  if (!resolve(lib.dl, "cuFileDriverClose_v2", lib.driver_close)) resolve(lib.dl, "cuFileDriverClose", lib.driver_close);
  const char* missing = nullptr;
  if (!resolve(lib.dl, "cuFileDriverOpen", lib.driver_open)) missing = "cuFileDriverOpen";
  else if (lib.driver_close == nullptr) missing = "cuFileDriverClose";
  else if (!resolve(lib.dl, "cuFileDriverGetProperties", lib.get_properties)) missing = "cuFileDriverGetProperties";
  else if (!resolve(lib.dl, "cuFileHandleRegister", lib.handle_register)) missing = "cuFileHandleRegister";
  else if (!resolve(lib.dl, "cuFileHandleDeregister", lib.handle_deregister)) missing = "cuFileHandleDeregister";
  else if (!resolve(lib.dl, "cuFileRead", lib.read)) missing = "cuFileRead";
  else if (!resolve(lib.dl, "cuFileWrite", lib.write)) missing = "cuFileWrite";
  return missing ? std::string("the library lacks ") + missing + "; every I/O uses the engine" : "";
}

// Opens cuFile's driver in `lib` and asks whether it has a GPU-direct path. Returns why the
// fastpath is not kept, or "" when it is (with what was found in `found`).
std::string open_and_probe(const Config& config, Library& lib, std::string& found) {
  CUfileError_t e = lib.driver_open();
  if (e.err != 0)
    return printf_string("cuFileDriverOpen failed (err %d, cu_err %d); every I/O uses the engine", e.err, e.cu_err);
  lib.opened = true;  // from here ~Library closes the driver before unloading
  // Zeroed and oversized: a release whose struct is larger writes into the slack, and a field
  // it does not fill reads as 0 ("not supported").
  alignas(std::max_align_t) unsigned char props[kPropsBuffer] = {};
  e = lib.get_properties(props);
  if (e.err != 0)
    return printf_string("cuFileDriverGetProperties failed (err %d, cu_err %d); every I/O uses the engine", e.err,
                         e.cu_err);
  CUfileDrvPropsHead head;
  std::memcpy(&head, props, sizeof head);
  const bool nvfs_module = ::access("/proc/driver/nvidia-fs", F_OK) == 0;
  const bool nvme_p2p = (head.nvfs.dstatusflags & kStatusNvmeP2p) != 0;
  found = printf_string(
      "nvfs version %u.%u, status flags 0x%x, %s, P2PDMA %s", head.nvfs.major_version, head.nvfs.minor_version,
      head.nvfs.dstatusflags, nvfs_module ? "/proc/driver/nvidia-fs present" : "no /proc/driver/nvidia-fs",
      config.use_pcip2pdma ? (nvme_p2p ? "requested and supported" : "requested but not supported")
                           : "not requested");
  if (!nvfs_module && head.nvfs.major_version == 0 && !(config.use_pcip2pdma && nvme_p2p))
    return "libcufile loaded but reports no GPU-direct storage (" + found +
           "); its driver was closed, every I/O uses the engine";
  return "";
}

}  // namespace

bool gds_kernel_support(bool p2pdma_asked, const std::string& root) {
  if (p2pdma_asked || ::access((root + "/proc/driver/nvidia-fs").c_str(), F_OK) == 0) return true;
  DIR* dev = ::opendir((root + "/dev").c_str());
  if (dev == nullptr) return false;
  bool found = false;
  while (const dirent* e = ::readdir(dev))
    if (std::strncmp(e->d_name, "nvidia-fs", 9) == 0) found = true;
  ::closedir(dev);
  return found;
}

std::shared_ptr<Fastpath> load_cufile(const Config& config, Report& report) {
  report = Report{};
  const std::vector<std::string> names = candidates(config);
  if (names.empty()) {
    report.reason = "no cuFile on this build: HIPFILE_CUFILE_LIBRARY is not set and only nvidia builds search for "
                    "libcufile; every I/O uses the engine";
    return nullptr;
  }
  // Its own search only: a library named in HIPFILE_CUFILE_LIBRARY is always loaded.
  if (config.cufile_library.empty() && !gds_kernel_support(config.use_pcip2pdma)) {
    report.reason = "no nvidia-fs kernel module (/proc/driver/nvidia-fs, /dev/nvidia-fs*) and P2PDMA not requested: "
                    "no GPU-direct storage is possible, so libcufile is not loaded; every I/O uses the engine";
    return nullptr;
  }
  auto lib = std::make_shared<Library>();
  std::string found;
  report.reason = load_library(names, *lib, report);
  if (report.reason.empty()) report.reason = open_and_probe(config, *lib, found);
  if (!report.reason.empty()) return nullptr;  // ~Library: cuFileDriverClose if opened, then dlclose
  report.fastpath = "cufile";
  report.gds = true;
  report.reason = "GPU-direct storage reported (" + found +
                  "); aligned device I/O on files cuFile registers goes through cuFile";
  return std::make_shared<Cufile>(std::move(lib));
}

}  // namespace hipfile::fastpath
