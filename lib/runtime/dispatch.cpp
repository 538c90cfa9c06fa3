// SPDX-License-Identifier: MIT
#include "runtime/dispatch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>

#include "fastpath/fastpath.hpp"
#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "gpu/recent_pointers.hpp"
#include "runtime/driver.hpp"
#include "runtime/profile.hpp"
#include "runtime/stats.hpp"
#include "sys/log.hpp"
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

// Without `config`, host and managed memory are accepted whatever the configuration says (the
// submission checks of async and batch, which leave that to the I/O).
Status resolve(const Driver& driver, const std::byte* base, const Config* config, Target& t) {
  if (Lease<Buffer> reg = driver.buffers.find_containing(base)) {
    t.kind = reg->kind;
    t.device = reg->device;
    t.usable = static_cast<std::size_t>(reg->base + reg->length - base);
    t.registration = std::move(reg);
    return Status::success();
  }
  gpu::PointerInfo info;
  if (hipError_t e = gpu::query_pointer_recent(base, info); e != hipSuccess) return Status::of_hip(e);
  t.kind = info.kind;
  t.device = info.device;
  if (info.alloc_base != nullptr)
    t.usable = static_cast<std::size_t>(info.alloc_base + info.alloc_size - base);
  if (config && info.kind != gpu::MemKind::Device && !config->allow_system_memory)
    return Status::of(Error::HipMemoryTypeInvalid);
  // Managed or pinned host memory whose allocation the runtime cannot bound (its range query
  // failed) and that is not registered: any size could run past it, so none is accepted.
  if (gpu::bound_unknown(info)) return Status::of(Error::InvalidValue);
  return Status::success();
}

// Records one request in the statistics when it leaves do_io, whatever the outcome.
struct StatsScope {
  const IoResult& result;
  Direction op;
  stats::Path path = stats::Path::Host;
  int device = -1;
  std::uint64_t started = stats::start();
  ~StatsScope() {
    stats::record(path, op, device, result.ok() && result.bytes > 0 ? static_cast<std::size_t>(result.bytes) : 0,
                  started, !result.ok());
  }
};


// Waits for the work queued on `device`'s NULL stream, as a synchronous hipMemcpy would.
Status wait_null_stream(int device) {
  hipError_t e = gpu::sync_null_stream(device);
  return e == hipSuccess ? Status::success() : Status::of_hip(e);
}

// Orders the request after the NULL stream where it asks to be. Managed memory is read and
// written by the CPU directly, so the application's NULL-stream work producing it must have
// finished first. The engine orders what it serves itself (cheaply for small requests); a
// fastpath's transfer is not stream-ordered, so with one loaded, wait here.
Status order(Ordering ordering, const Target& t, bool fastpath_loaded, Request& req) {
  req.after_null_stream = ordering == Ordering::AfterNullStream && req.device >= 0;
  if (ordering == Ordering::AfterNullStream && t.kind == gpu::MemKind::Managed)
    if (Status st = wait_null_stream(t.device); !st.ok()) return st;
  if (req.after_null_stream && fastpath_loaded) {
    if (Status st = wait_null_stream(req.device); !st.ok()) return st;
    req.after_null_stream = false;  // done: the engine need not wait again
  }
  return Status::success();
}

// Whether [base + off, + size) lies within the registration or allocation of the target.
bool fits(const Target& t, std::size_t off, std::size_t size) noexcept { return off <= t.usable && size <= t.usable - off; }

// The request within [base + buffer_offset, + size) of the target, or InvalidValue when that
// range leaves the registration or allocation. A request also may not start at its end, even
// an empty one (submission checks accept that: check_region).
Status make_request(Direction dir, File& file, const std::byte* base, const Target& t, std::size_t size,
                    off_t file_offset, off_t buffer_offset, Request& req) {
  const auto off = static_cast<std::size_t>(buffer_offset);
  if (!fits(t, off, size) || (off == t.usable && t.usable != 0)) return Status::of(Error::InvalidValue);
  req.dir = dir;
  req.file = &file;
  req.mem = const_cast<std::byte*>(base) + off;
  req.device = t.kind == gpu::MemKind::Device ? t.device : -1;
  req.size = size;
  req.offset = file_offset;
  return Status::success();
}

// The checks that need no memory lookup, after the driver's, in upstream's order: the handle,
// then the arguments. Returns the file's lease (empty on failure, with `st` set).
Lease<File> check_call(Driver& driver, FileId fh, const void* base, std::size_t size, off_t file_offset,
                       off_t buffer_offset, Status& st) {
  Lease<File> file = driver.files.find(fh);
  if (!file) st = Status::of(Error::HandleNotRegistered);
  else if (!valid_arguments(base, size, file_offset, buffer_offset)) st = Status::of(Error::InvalidValue);
  else return file;
  return {};
}

// The statistics slot of requests `fp` finishes.
stats::Path stats_path(const fastpath::Fastpath& fp) noexcept {
  return fp.kind() == fastpath::Kind::Cufile ? stats::Path::Cufile : stats::Path::Amd;
}

// The fastpath that serves `req`, or null: none is loaded, compat mode is forced, or it does not
// take this request.
fastpath::Fastpath* fastpath_for(fastpath::Fastpath* fp, const Config& config, const Request& req) {
  return fp != nullptr && !config.force_compat && fp->serves(req) ? fp : nullptr;
}

IoResult run_on(Backend& backend, const Request& req) {
  return req.dir == Direction::Read ? backend.read(req) : backend.write(req);
}

// Errors that mean "this fastpath cannot do this I/O" rather than "the I/O failed": the device or
// the peer-to-peer route is missing (ENODEV, EREMOTEIO), or the layout was refused (EINVAL: the
// kernel's answer to an alignment or placement it does not take).
bool engine_can_serve(const Status& st) noexcept {
  return st.op == Error::Success && (st.sys == ENODEV || st.sys == EREMOTEIO || st.sys == EINVAL);
}

// POSIX's convention: a failure after `moved` leading bytes is a short count of them.
IoResult moved_prefix(const IoResult& failed, std::size_t moved) noexcept {
  if (failed.ok() || moved == 0) return failed;
  IoResult r;
  r.bytes = static_cast<ssize_t>(moved);
  return r;
}

// After the fastpath moved less than asked: a short count is finished (or, for a read at end of
// file, confirmed) by the engine, an error only when it is one the engine can serve, and only
// when the engine, the compat path, is allowed. The bytes the fastpath moved stay a prefix.
IoResult finish_on_engine(fastpath::Fastpath& fp, Backend& engine, const Config& config, const Request& req,
                          const IoResult& r, stats::Path& path) {
  std::size_t moved = r.bytes > 0 ? static_cast<std::size_t>(r.bytes) : 0;
  if (moved > req.size) moved = req.size;  // a fastpath never claims more than asked
  const bool retry = r.ok() || engine_can_serve(r.status);
  const char* op = req.dir == Direction::Read ? "read" : "write";
  if (!retry || !config.allow_compat) {
    if (r.ok() || moved > 0) path = stats_path(fp);  // a short count stands as the fastpath gave it
    HIPFILE_LOG(Debug, "fastpath %s: %s at offset %lld failed (errno %d, op %d)%s", fp.name(), op,
                static_cast<long long>(req.offset), r.status.sys, static_cast<int>(r.status.op),
                retry ? "; compat mode disabled, not retried" : "");
    return moved_prefix(r, moved);
  }
  HIPFILE_LOG(Debug, "fastpath %s: %s at offset %lld moved %zu of %zu bytes (errno %d); the engine serves the rest",
              fp.name(), op, static_cast<long long>(req.offset), moved, req.size, r.status.sys);
  Request rest = req;
  rest.mem += moved;
  rest.offset += static_cast<off_t>(moved);
  rest.size -= moved;
  IoResult e = run_on(engine, rest);
  // The engine's error stands only when nothing moved at all: the fastpath's bytes are a prefix.
  if (!e.ok()) return moved_prefix(e, moved);
  e.bytes += static_cast<ssize_t>(moved);
  return e;  // `path` stays the engine's: the engine finished the request
}

// Runs one request: on `fp` when it serves it, else (or for what it could not serve) on the
// engine. `path` becomes the fastpath's statistics slot when the fastpath finished the request.
IoResult serve(fastpath::Fastpath* fp, Backend& engine, const Config& config, const Request& req,
               stats::Path& path) {
  if (fp == nullptr) return run_on(engine, req);
  IoResult r = run_on(*fp, req);
  if (r.ok() && static_cast<std::size_t>(r.bytes) == req.size) {
    path = stats_path(*fp);
    return r;
  }
  return finish_on_engine(*fp, engine, config, req, r, path);
}

// A well-formed request on known memory: to the fastpath that serves it, else to the engine,
// after the access and ordering checks.
IoResult route(Instance& instance, const File& file, const Target& t, Ordering ordering, Request& req,
               stats::Path& path) {
  const Config& config = instance.config();
  IoResult r;
  // The fastpath loaded at open (lib/fastpath), if any, when it serves this request.
  fastpath::Fastpath* fp = fastpath_for(instance.fastpath(), config, req);
  if (t.kind == gpu::MemKind::Device && !config.allow_compat && fp == nullptr) {
    r.status = Status::of(Error::IODisabled);  // the engine is the compat path, and no fastpath takes it
    return r;
  }
  if (r.status = check_access(req.dir, file); !r.status.ok()) return r;
  if (r.status = order(ordering, t, instance.fastpath() != nullptr, req); !r.status.ok()) return r;
  return serve(fp, instance.engine(), config, req, path);
}

}  // namespace

Status check_access(Direction dir, const File& file) {
  if (dir == Direction::Write && file.access == O_RDONLY) return Status::of_errno(EBADF);
  if (dir == Direction::Read && file.access == O_WRONLY) return Status::of_errno(EBADF);
  if (dir == Direction::Write && file.append_only) {
    // Only the client's O_APPEND descriptor serves this file (its reopen was refused), and a
    // pwrite through it would land at the end of file, not at file_offset.
    HIPFILE_LOG(Debug, "write refused: fd %d has O_APPEND and could not be reopened without it", file.client_fd);
    return Status::of(Error::InvalidFileOpenFlag);
  }
  return Status::success();
}

bool valid_arguments(const void* base, std::size_t size, off_t file_offset, off_t buffer_offset) noexcept {
  return base != nullptr && file_offset >= 0 && buffer_offset >= 0 && size <= static_cast<std::size_t>(LLONG_MAX) &&
         file_offset <= LLONG_MAX - static_cast<off_t>(size);
}

Status check_region(const void* buffer_base, std::size_t size, off_t file_offset, off_t buffer_offset, int* device) {
  const Status kInvalid = Status::of(Error::InvalidValue);
  if (!valid_arguments(buffer_base, size, file_offset, buffer_offset)) return kInvalid;
  Target t;
  if (Status st = resolve(Driver::get(), static_cast<const std::byte*>(buffer_base), nullptr, t); !st.ok())
    return st.op == Error::HipDriverError ? st : kInvalid;
  if (!fits(t, static_cast<std::size_t>(buffer_offset), size)) return kInvalid;
  if (device) *device = t.kind == gpu::MemKind::Device ? t.device : -1;
  return Status::success();
}

IoResult do_io(Direction dir, FileId fh, const void* buffer_base, std::size_t size,
               off_t file_offset, off_t buffer_offset, Ordering ordering) {
  IoResult r;
  Driver& driver = Driver::get();
  // One lease for the whole request: its configuration, engine and fastpath belong together.
  const std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) {
    r.status = Status::of_errno(EINVAL);  // upstream: no driver is an errno, not an op error
    return r;
  }
  Lease<File> file = check_call(driver, fh, buffer_base, size, file_offset, buffer_offset, r.status);
  if (!file) return r;
  const Config& config = instance->config();
  const auto* base = static_cast<const std::byte*>(buffer_base);
  Target t;
  if (r.status = resolve(driver, base, &config, t); !r.status.ok()) return r;
  // Counted from here: the request is well formed and its memory known.
  StatsScope counted{r, dir};
  profile::Range range(dir == Direction::Read ? "hipFileRead" : "hipFileWrite", size, file_offset);
  counted.device = t.device;
  if (t.kind == gpu::MemKind::Device) counted.path = stats::Path::Engine;
  Request req;
  if (r.status = make_request(dir, *file, base, t, size, file_offset, buffer_offset, req); !r.status.ok() || size == 0)
    return r;
  r = route(*instance, *file, t, ordering, req, counted.path);
  if (r.ok() && dir == Direction::Write && config.durable_writes && sys::ops.fdatasync(file->buffered_fd) != 0)
    r.status = Status::of_errno(errno);
  return r;
}

}  // namespace hipfile::engine
