// SPDX-License-Identifier: MIT
// Which fastpath loads at driver open, its per-file registration, and whether it serves one
// request (doc/fastpaths.md). What the runtime does with a request it cannot finish is the
// runtime's (lib/runtime/dispatch.cpp).
#include <algorithm>
#include <cstdint>
#include <mutex>

#include "fastpath/fastpath.hpp"
#include "sys/log.hpp"

namespace hipfile::fastpath {

namespace {

std::mutex g_test_mu;
std::shared_ptr<Fastpath> g_test_fastpath;  // guarded by g_test_mu

bool multiple(std::uint64_t v, std::uint32_t a) noexcept { return a != 0 && v % a == 0; }

}  // namespace

void set_test_fastpath(std::shared_ptr<Fastpath> fp) {
  std::lock_guard lock(g_test_mu);
  g_test_fastpath = std::move(fp);
}

namespace {

std::shared_ptr<Fastpath> choose(const Config& config, Report& report) {
  if (config.force_compat) {
    report.reason = "compat mode is forced (HIPFILE_FORCE_COMPAT_MODE or hipFileParamForceCompatMode): no fastpath "
                    "is loaded, every I/O uses the engine";
    return nullptr;
  }
  {
    std::lock_guard lock(g_test_mu);
    if (g_test_fastpath) {
      report.fastpath = g_test_fastpath->name();
      report.gds = true;
      report.reason = "a test injected this fastpath (fastpath::set_test_fastpath)";
      return g_test_fastpath;
    }
  }
  // An explicit libcufile wins on every build: that is how the cpu suite loads its fake.
  if (!config.cufile_library.empty()) return load_cufile(config, report);
#if defined(__HIP_PLATFORM_NVIDIA__)
  return load_cufile(config, report);
#elif defined(__HIP_PLATFORM_AMD__)
  return load_amd_ais(config, report);
#else
  report.reason = "no fastpath exists on platform cpu (HIPFILE_CUFILE_LIBRARY is not set); every I/O uses the engine";
  return nullptr;
#endif
}

}  // namespace

std::shared_ptr<Fastpath> load(const Config& config) {
  Report report;
  std::shared_ptr<Fastpath> fp = choose(config, report);
  HIPFILE_LOG(Debug, "fastpath: %s", report.text().c_str());
  publish(std::move(report));
  return fp;
}

void attach(Fastpath* fp, File& file) {
  if (fp == nullptr) return;
  file.fastpath_state = fp->attach(file);
  HIPFILE_LOG(Debug, "fastpath %s: fd %d %s", fp->name(), file.client_fd,
              file.fastpath_state ? "registered" : "not registered; the file is engine-only");
}

bool Fastpath::serves(const Request& req) const {
  if (req.device < 0 || req.size == 0 || !req.file->fastpath_state) return false;
  // Upstream's criteria with 4 KiB as the effective minimum: offset and size on the O_DIRECT
  // offset alignment, the address on the memory alignment.
  const std::uint32_t floor = min_alignment();
  const std::uint32_t off_align = std::max(floor, req.file->dio_align);
  const std::uint32_t mem_align = std::max(floor, req.file->mem_align);
  if (!multiple(static_cast<std::uint64_t>(req.offset), off_align) || !multiple(req.size, off_align) ||
      !multiple(reinterpret_cast<std::uintptr_t>(req.mem), mem_align))
    return false;
  return usable_for(*req.file, gpu::MemKind::Device, req.device, req.mem, req.offset, req.size);
}

}  // namespace hipfile::fastpath
