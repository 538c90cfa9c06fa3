// SPDX-License-Identifier: MIT
#include "staging/mapped.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "gpu/copy.hpp"
#include "gpu/hip.hpp"
#include "io/config.hpp"
#include "staging/job.hpp"
#include "staging/lanes.hpp"
#include "staging/moved.hpp"
#include "staging/movers.hpp"
#include "sys/log.hpp"
#include "sys/page_cache.hpp"
#include "sys/phases.hpp"

namespace hipfile::engine {

FileMapping::~FileMapping() {
  if (base_) ::munmap(const_cast<std::byte*>(base_), length_);
}

bool FileMapping::map_if_resident(int fd, off_t offset, off_t end) {
  sys::PhaseTimer timed(sys::Phase::Mapping);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (end > st.st_size) end = st.st_size;  // never map past the end: touching it is SIGBUS
  if (offset >= end) return false;
  const off_t page = ::sysconf(_SC_PAGESIZE);
  const off_t first = offset - offset % page;
  const auto length = static_cast<std::size_t>(end - first);
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, first);
  if (p == MAP_FAILED) return false;
  // Cold pages would be faulted in one at a time by the pinning: the staged path, with its
  // parallel large preads (or O_DIRECT), reads them faster.
  if (!sys::mapping_resident(p, length)) {
    ::munmap(p, length);
    return false;
  }
  base_ = static_cast<const std::byte*>(p);
  file_base_ = first;
  length_ = length;
  return true;
}

namespace {

// The file's size now, for a mapped read that must not touch pages past it (0 if unknown).
off_t current_size(int fd) noexcept {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? st.st_size : 0;
}

// A truncation that raced the copies may have zeroed the tail of the page at the new end before
// a copy read it (the size check in step() came first), so what lies past the size seen now that
// the copies have finished is not reported. A truncation after this check came after the copies.
void clip_to_size_after_copies(Job& job) noexcept {
  struct stat st {};
  if (::fstat(job.req.file->buffered_fd, &st) == 0 && st.st_size < job.end)
    job.short_at(std::max(job.req.offset, static_cast<off_t>(st.st_size)));
}

// One thread's run of run_mapped_read, on the stack: the job, its lane and what the steps share.
class MappedRead {
 public:
  MappedRead(Job& job, Lane& lane, const Config& config) noexcept
      : job_(job), lane_(lane), config_(config), map_(*job.mapping),
        page_(static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE))) {}
  void run();

 private:
  // What the claiming loop does after a step. Leave: the lane failed to drain, and the run ends
  // at once (no last drain, no size check).
  enum class Next { Claim, Stop, Leave };
  Next step(off_t a, off_t b);
  Next stage_instead(hipError_t why, off_t a, off_t b);
  bool copy_pinned(const std::byte* src, std::byte* pages, off_t a, off_t b);

  Job& job_;
  Lane& lane_;
  const Config& config_;
  const FileMapping& map_;
  const std::uintptr_t page_;
  off_t unconfirmed_ = -1;  // this thread's first range: its copies are confirmed only by the drain
};

void MappedRead::run() {
  lane_.restart_ring();
  const off_t per_step = std::max<off_t>(1, static_cast<off_t>(config_.map_chunk) / job_.chunk);
  off_t k0, k1;
  while (job_.claim_run(per_step, k0, k1)) {
    const off_t a = job_.range(k0).first;
    off_t b = job_.range(k1).second;
    if (unconfirmed_ < 0) unconfirmed_ = a;
    if (b > map_.end()) {  // the file ended (or shrank) before the request did
      job_.short_at(std::max(a, map_.end()));
      b = map_.end();
      if (a >= b) continue;
    }
    const Next next = step(a, b);
    if (next == Next::Leave) return;
    if (next == Next::Stop) break;
  }
  if (hipError_t e = lane_.drain(); e != hipSuccess) job_.fail(Status::of_hip(e), unconfirmed_);
  clip_to_size_after_copies(job_);
}

// Pins the pages of [a, b) and queues their copy to the device.
MappedRead::Next MappedRead::step(off_t a, off_t b) {
  const std::byte* src = map_.at(a);
  auto* first = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(src) & ~(page_ - 1));
  auto last = (reinterpret_cast<std::uintptr_t>(src) + static_cast<std::uintptr_t>(b - a) + page_ - 1) & ~(page_ - 1);
  // Pin this range while the copies queued before it still run.
  hipError_t e;
  {
    sys::PhaseTimer timed(sys::Phase::Mapping);
    e = gpu::register_read_only(first, last - reinterpret_cast<std::uintptr_t>(first));
  }
  if (e != hipSuccess) return stage_instead(e, a, b);
  // The file may have shrunk since it was mapped: pages past its end are gone (touching them is
  // SIGBUS), so the copy stops at the size seen now that the range is pinned.
  if (const off_t size = current_size(job_.req.file->buffered_fd); size < b) {
    job_.short_at(std::max(a, size));
    b = std::max(a, size);
    if (a >= b) {
      (void)gpu::unregister_host(first);
      return Next::Claim;
    }
  }
  return copy_pinned(src, first, a, b) ? Next::Claim : Next::Stop;
}

// The runtime cannot pin page-cache pages here: stage this chunk and every later read of this
// file, and say so once.
MappedRead::Next MappedRead::stage_instead(hipError_t why, off_t a, off_t b) {
  gpu::clear_last_error();
  if (!job_.req.file->mapped_failed.exchange(true))
    HIPFILE_LOG(Info, "hipHostRegister of page-cache pages failed (%s): reads of this file are staged",
                gpu::error_name(why));
  if (hipError_t d = lane_.drain(); d != hipSuccess) {
    job_.fail(Status::of_hip(d), unconfirmed_);
    return Next::Leave;
  }
  unconfirmed_ = a;
  // The chunk takes the ring from its first slot; the mapped copies resume where they were.
  const unsigned resume = lane_.restart_ring();
  const auto piece = static_cast<off_t>(lane_.slot_bytes() - kAlignSlack);
  for (off_t p = a; p < b; p += piece)
    if (!stage_piece(job_, lane_, config_, p, b - p <= piece ? b : p + piece, a)) break;
  lane_.restart_ring(resume);
  if (hipError_t d = lane_.drain(); d != hipSuccess) job_.fail(Status::of_hip(d), a);
  if (job_.failed) return Next::Stop;
  unconfirmed_ = -1;
  return Next::Claim;
}

// Queues the copy of [a, b) from its pinned `pages` through the lane's next slot, which
// unregisters them once the copy has finished. False when the job failed.
bool MappedRead::copy_pinned(const std::byte* src, std::byte* pages, off_t a, off_t b) {
  Slot& s = lane_.next_slot();
  if (hipError_t f = lane_.free_slot(s); f != hipSuccess) {
    (void)gpu::unregister_host(pages);
    job_.fail(Status::of_hip(f), unconfirmed_);
    return false;
  }
  s.pinned_pages = pages;
  hipError_t e = gpu::copy_to_device_async(job_.req.mem + (a - job_.req.offset), src, static_cast<std::size_t>(b - a),
                                           lane_.stream());
  if (e == hipSuccess) e = gpu::record_event(s.done, lane_.stream());
  if (e != hipSuccess) {
    job_.fail(Status::of_hip(e), unconfirmed_);
    return false;
  }
  s.busy = true;
  count_moved(MovedSlot::Engine, Direction::Read, false, static_cast<std::size_t>(b - a));
  return true;
}

}  // namespace

void run_mapped_read(Job& job, Lane& lane, const Config& config) { MappedRead(job, lane, config).run(); }

}  // namespace hipfile::engine
