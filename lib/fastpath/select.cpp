// SPDX-License-Identifier: MIT
// Per-I/O selection between the loaded fastpath and the staging engine, and the retry rules
// (doc/fastpaths.md): a fastpath failure the engine can serve is finished on the engine for the
// remaining range, keeping the bytes the fastpath already moved.
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <mutex>

#include "sys/log.hpp"
#include "fastpath/fastpath.hpp"

namespace hipfile::fastpath {

namespace {

std::mutex g_test_mu;
std::shared_ptr<Fastpath> g_test_fastpath;  // guarded by g_test_mu

bool multiple(std::uint64_t v, std::uint32_t a) noexcept { return a != 0 && v % a == 0; }

// Errors that mean "this fastpath cannot do this I/O" rather than "the I/O failed": the device or
// the peer-to-peer route is missing (ENODEV, EREMOTEIO), or the layout was refused (EINVAL: the
// kernel's answer to an alignment or placement it does not take).
bool engine_can_serve(const engine::Status& st) noexcept {
  return st.op == hipFileSuccess && (st.sys == ENODEV || st.sys == EREMOTEIO || st.sys == EINVAL);
}

// POSIX's convention: a failure after `moved` leading bytes is a short count of them.
IoResult moved_prefix(const IoResult& failed, std::size_t moved) noexcept {
  if (failed.ok() || moved == 0) return failed;
  IoResult r;
  r.bytes = static_cast<ssize_t>(moved);
  return r;
}

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

bool selects(const Fastpath* fp, const Config& config, const Request& req, gpu::MemKind kind) {
  if (fp == nullptr || config.force_compat || kind != gpu::MemKind::Device || req.size == 0) return false;
  if (!req.file->fastpath_state) return false;
  // Upstream's criteria with 4 KiB as the effective minimum: offset and size on the O_DIRECT
  // offset alignment, the address on the memory alignment.
  const std::uint32_t floor = fp->min_alignment();
  const std::uint32_t off_align = std::max(floor, req.file->dio_align);
  const std::uint32_t mem_align = std::max(floor, req.file->mem_align);
  if (!multiple(static_cast<std::uint64_t>(req.offset), off_align) || !multiple(req.size, off_align) ||
      !multiple(reinterpret_cast<std::uintptr_t>(req.mem), mem_align))
    return false;
  return fp->usable_for(*req.file, kind, req.device, req.mem, req.offset, req.size);
}

IoResult execute(Fastpath* fp, const Config& config, const Request& req, gpu::MemKind kind, const EngineFn& engine,
                 hipFileStatsPath_t& path) {
  if (!selects(fp, config, req, kind)) return engine(req);

  IoResult r = req.dir == Direction::Read ? fp->read(*req.file, req.mem, req.size, req.offset)
                                          : fp->write(*req.file, req.mem, req.size, req.offset);
  if (r.ok() && static_cast<std::size_t>(r.bytes) == req.size) {
    path = fp->stats_path();
    return r;
  }
  std::size_t moved = r.bytes > 0 ? static_cast<std::size_t>(r.bytes) : 0;
  if (moved > req.size) moved = req.size;  // a fastpath never claims more than asked
  // A short count is finished (or, for a read at end of file, confirmed) by the engine; an error
  // only when it is one the engine can serve. The engine is the compat path: only if allowed.
  const bool retry = r.ok() || engine_can_serve(r.status);
  if (!retry || !config.allow_compat) {
    if (r.ok() || moved > 0) path = fp->stats_path();  // a short count stands as the fastpath gave it
    HIPFILE_LOG(Debug, "fastpath %s: %s at offset %lld failed (errno %d, op %d)%s", fp->name(),
                req.dir == Direction::Read ? "read" : "write", static_cast<long long>(req.offset), r.status.sys,
                static_cast<int>(r.status.op), retry ? "; compat mode disabled, not retried" : "");
    return moved_prefix(r, moved);
  }
  HIPFILE_LOG(Debug, "fastpath %s: %s at offset %lld moved %zu of %zu bytes (errno %d); the engine serves the rest",
              fp->name(), req.dir == Direction::Read ? "read" : "write", static_cast<long long>(req.offset), moved,
              req.size, r.status.sys);
  Request rest = req;
  rest.mem += moved;
  rest.offset += static_cast<off_t>(moved);
  rest.size -= moved;
  IoResult e = engine(rest);
  // The engine's error stands only when nothing moved at all: the fastpath's bytes are a prefix.
  if (!e.ok()) return moved_prefix(e, moved);
  e.bytes += static_cast<ssize_t>(moved);
  return e;  // `path` stays the engine's: the engine finished the request
}

}  // namespace hipfile::fastpath
