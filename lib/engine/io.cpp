// SPDX-License-Identifier: MIT
#include "engine/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <cstdint>

#include "engine/driver.hpp"
#include "engine/log.hpp"
#include "engine/profile.hpp"
#include "engine/stats.hpp"
#include "fastpath/fastpath.hpp"
#include "gpu/hip.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

namespace {

// Where the caller's memory is and how far it may be used from `base`.
struct Target {
  Lease<Buffer> registration;  // held for the whole I/O so deregistration waits for it
  gpu::MemKind kind = gpu::MemKind::Unregistered;
  int device = -1;
  std::size_t usable = SIZE_MAX;  // bytes from `base` to the end of the registration/allocation
};

Status resolve(const Driver& driver, const std::byte* base, const Config& config, Target& t) {
  if (Lease<Buffer> reg = driver.buffers.find_containing(base)) {
    t.kind = reg->kind;
    t.device = reg->device;
    t.usable = static_cast<std::size_t>(reg->base + reg->length - base);
    t.registration = std::move(reg);
    return Status::success();
  }
  gpu::PointerInfo info;
  if (hipError_t e = gpu::query_pointer(base, info); e != hipSuccess) return Status::of_hip(e);
  t.kind = info.kind;
  t.device = info.device;
  if (info.alloc_base != nullptr)
    t.usable = static_cast<std::size_t>(info.alloc_base + info.alloc_size - base);
  if (info.kind != gpu::MemKind::Device && !config.allow_system_memory)
    return Status::of(hipFileHipMemoryTypeInvalid);
  // Managed or pinned host memory whose allocation the runtime cannot bound (its range query
  // failed) and that is not registered: any size could run past it, so none is accepted.
  if (gpu::bound_unknown(info)) return Status::of(hipFileInvalidValue);
  return Status::success();
}

// Records one request in the statistics when it leaves do_io, whatever the outcome.
struct StatsScope {
  const IoResult& result;
  hipFileStatsOp_t op;
  hipFileStatsPath_t path = hipFileStatsPathHost;
  int device = -1;
  std::uint64_t started = stats::start();
  ~StatsScope() {
    stats::record(path, op, device, result.ok() && result.bytes > 0 ? static_cast<std::size_t>(result.bytes) : 0,
                  started, !result.ok());
  }
};

}  // namespace

IoResult do_io(Direction dir, hipFileHandle_t fh, const void* buffer_base, std::size_t size,
               hoff_t file_offset, hoff_t buffer_offset, Ordering ordering) {
  IoResult r;
  Driver& driver = Driver::get();
  if (!driver.is_open()) {
    r.status = Status::of_errno(EINVAL);  // upstream: no driver is an errno, not an op error
    return r;
  }
  Lease<File> file = driver.files.find(fh);
  if (!file) {
    r.status = Status::of(hipFileHandleNotRegistered);
    return r;
  }
  if (buffer_base == nullptr || file_offset < 0 || buffer_offset < 0 ||
      size > static_cast<std::size_t>(LLONG_MAX) ||
      file_offset > LLONG_MAX - static_cast<hoff_t>(size)) {
    r.status = Status::of(hipFileInvalidValue);
    return r;
  }
  // One lease for the whole request: its configuration, engine and fastpath belong together.
  const std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) {
    r.status = Status::of_errno(EINVAL);  // closed since the check above
    return r;
  }
  const Config& config = instance->config();
  const auto* base = static_cast<const std::byte*>(buffer_base);
  Target t;
  if (Status st = resolve(driver, base, config, t); !st.ok()) {
    r.status = st;
    return r;
  }
  // Counted from here: the request is well formed and its memory known.
  StatsScope counted{r, dir == Direction::Read ? hipFileStatsOpRead : hipFileStatsOpWrite};
  profile::Range range(dir == Direction::Read ? "hipFileRead" : "hipFileWrite", size, file_offset);
  counted.device = t.device;
  if (t.kind == gpu::MemKind::Device) counted.path = hipFileStatsPathEngine;
  // Bounds: nothing outside [base + buffer_offset, + size) within the registration/allocation.
  const auto off = static_cast<std::size_t>(buffer_offset);
  if (off > t.usable || size > t.usable - off || (off == t.usable && t.usable != 0)) {
    r.status = Status::of(hipFileInvalidValue);
    return r;
  }
  if (size == 0) return r;
  Request req;
  req.dir = dir;
  req.file = file.get();
  req.mem = const_cast<std::byte*>(base) + off;
  req.device = t.kind == gpu::MemKind::Device ? t.device : -1;
  req.size = size;
  req.offset = file_offset;
  // The fastpath loaded at open (lib/fastpath), if any; select.cpp decides per request.
  fastpath::Fastpath* fp = instance->fastpath();
  if (t.kind == gpu::MemKind::Device && !config.allow_compat && !fastpath::selects(fp, config, req, t.kind)) {
    // The staging engine is the compat path, and no fastpath takes this request.
    r.status = Status::of(hipFileIODisabled);
    return r;
  }
  if (dir == Direction::Write && file->access == O_RDONLY) {
    r.status = Status::of_errno(EBADF);
    return r;
  }
  if (dir == Direction::Write && file->append_only) {
    // Only the client's O_APPEND descriptor serves this file (its reopen was refused), and a
    // pwrite through it would land at the end of file, not at file_offset.
    HIPFILE_LOG(Debug, "write refused: fd %d has O_APPEND and could not be reopened without it", file->client_fd);
    r.status = Status::of(hipFileInvalidFileOpenFlag);
    return r;
  }
  if (dir == Direction::Read && file->access == O_WRONLY) {
    r.status = Status::of_errno(EBADF);
    return r;
  }

  // Managed memory is read and written by the CPU directly, so work the application queued on the
  // NULL stream (a kernel producing it, a memset) must have finished first, as for device memory.
  if (ordering == Ordering::AfterNullStream && t.kind == gpu::MemKind::Managed) {
    gpu::DeviceGuard on(t.device);
    hipError_t e = on.status() == hipSuccess ? hipStreamSynchronize(nullptr) : on.status();
    if (e != hipSuccess) {
      r.status = Status::of_hip(e);
      return r;
    }
  }
  // The engine orders what it serves after the NULL stream itself (cheaply for small requests);
  // a fastpath's transfer is not stream-ordered, so with one loaded, wait here.
  req.after_null_stream = ordering == Ordering::AfterNullStream && req.device >= 0;
  if (req.after_null_stream && fp) {
    gpu::DeviceGuard on(req.device);
    hipError_t e = on.status() == hipSuccess ? hipStreamSynchronize(nullptr) : on.status();
    if (e != hipSuccess) {
      r.status = Status::of_hip(e);
      return r;
    }
    req.after_null_stream = false;  // done: the engine need not wait again
  }
  // Fastpath when selected, else (and for what it could not serve) the engine; counted.path
  // becomes the fastpath's slot when it finished the request.
  r = fastpath::execute(fp, config, req, t.kind,
                        [&instance](const Request& rq) { return instance->engine().execute(rq); }, counted.path);
  if (r.ok() && dir == Direction::Write && config.durable_writes) {
    if (sys::ops.fdatasync(file->buffered_fd) != 0) r.status = Status::of_errno(errno);
  }
  return r;
}

}  // namespace hipfile::engine
