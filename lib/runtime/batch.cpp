// SPDX-License-Identifier: MIT
#include "runtime/batch.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <unordered_map>

#include "runtime/driver.hpp"
#include "runtime/executor.hpp"
#include "runtime/instance.hpp"
#include "runtime/dispatch.hpp"

namespace hipfile::engine {

namespace {

struct Registry {
  std::mutex mu;
  std::unordered_map<hipFileBatchHandle_t, std::shared_ptr<Batch>> batches;
  // Handles are numbers never handed out twice (not the object's address, which the allocator
  // reuses at once): a handle kept past hipFileBatchIODestroy never reaches a later batch.
  // Odd, so that no handle is a plausible pointer either.
  std::uintptr_t next = 0x10001;
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

Batch::Batch(unsigned capacity) : entries_(capacity) {}

namespace {

// One operation as submitted: a known mode and opcode, a registered handle, a region inside its
// memory.
Status check_entry(const Driver& driver, const hipFileIOParams_t& p) {
  // The caller's fields are ints from C: compared as ints, never loaded as C++ enums.
  int mode, opcode;
  std::memcpy(&mode, &p.mode, sizeof mode);
  std::memcpy(&opcode, &p.opcode, sizeof opcode);
  if (mode != hipFileBatch || (opcode != hipFileBatchRead && opcode != hipFileBatchWrite))
    return Status::of(Error::InvalidValue);
  if (!driver.files.find(p.fh)) return Status::of(Error::HandleNotRegistered);
  return check_region(p.u.batch.devPtr_base, p.u.batch.size, p.u.batch.file_offset, p.u.batch.devPtr_offset);
}

}  // namespace

Status Batch::submit(unsigned nr, const hipFileIOParams_t* ios) {
  Driver& driver = Driver::get();
  // Each task holds a lease on the instance until it has run, so its executor outlives it.
  std::shared_ptr<Instance> instance = driver.lease();
  if (!instance) return Status::of(Error::DriverNotInitialized);
  for (unsigned i = 0; i < nr; ++i)
    if (Status e = check_entry(driver, ios[i]); !e.ok()) return e;
  // Every allocation happens before an entry is committed, and the tasks are queued in one step
  // that cannot fail: an error return means no operation of this call runs.
  Executor& ex = instance->executor();
  auto self = shared_from_this();
  auto slots = std::make_shared<std::vector<std::pair<unsigned, std::uint64_t>>>(nr);
  Executor::Tasks tasks;
  for (unsigned i = 0; i < nr; ++i)
    tasks.push_back([self, slots, i, instance] { self->run((*slots)[i].first, (*slots)[i].second); });
  if (!commit(nr, ios, *slots)) return Status::of(Error::BatchFull);
  ex.post(tasks);
  return Status::success();
}

bool Batch::commit(unsigned nr, const hipFileIOParams_t* ios, std::vector<std::pair<unsigned, std::uint64_t>>& slots) {
  std::lock_guard lock(mu_);
  if (nr > entries_.size() - outstanding_) return false;
  unsigned next = 0;
  for (unsigned i = 0; i < nr; ++i) {
    while (entries_[next].in_use) ++next;
    Entry& e = entries_[next];
    e.params = ios[i];
    e.status = hipFileWaiting;
    e.ret = 0;
    e.in_use = true;
    ++e.generation;
    slots[i] = {next, e.generation};
  }
  outstanding_ += nr;
  return true;
}

void Batch::run(unsigned index, std::uint64_t generation) {
  hipFileIOParams_t p;
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[index];
    if (e.generation != generation || e.status != hipFileWaiting) return;  // canceled
    e.status = hipFilePending;
    p = e.params;
    ++running_;
  }
  IoResult r;
  try {
    // A batch has no stream of its own: its entries follow the NULL stream, like hipFileRead and
    // hipFileWrite, so a write sees what a pageable hipMemcpy or a NULL-stream kernel produced
    // before the submit (the executor's lanes are non-blocking streams).
    r = do_io(p.opcode == hipFileBatchWrite ? Direction::Write : Direction::Read, p.fh, p.u.batch.devPtr_base,
              p.u.batch.size, p.u.batch.file_offset, p.u.batch.devPtr_offset, Ordering::AfterNullStream);
  } catch (...) {
    r.status = Status::of(Error::InternalError);
  }
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[index];
    e.status = r.ok() ? hipFileComplete : hipFileFailed;
    e.ret = static_cast<std::size_t>(bytes_result(r));
    finished_.push_back(index);
    --running_;
  }
  changed_.notify_all();
}

Status Batch::get_status(unsigned min_nr, unsigned* nr, hipFileIOEvents_t* events, const timespec* timeout) {
  if (nr == nullptr || (events == nullptr && *nr > 0) || min_nr > *nr) return Status::of(Error::InvalidValue);
  if (timeout != nullptr && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 || timeout->tv_nsec >= 1000000000L))
    return Status::of(Error::InvalidValue);
  std::unique_lock lock(mu_);
  const std::size_t need = std::min<std::size_t>(min_nr, outstanding_);
  auto enough = [&] { return finished_.size() >= need; };
  // A timeout too long for the clock's nanosecond count (~292 years) saturates to "no limit"
  // instead of overflowing into the past and expiring at once.
  constexpr std::int64_t kMaxSeconds = std::int64_t{100} * 365 * 24 * 3600;
  if (timeout == nullptr || timeout->tv_sec > kMaxSeconds) {
    changed_.wait(lock, enough);
  } else {
    const auto limit = std::chrono::seconds(timeout->tv_sec) + std::chrono::nanoseconds(timeout->tv_nsec);
    changed_.wait_until(lock, std::chrono::steady_clock::now() + limit, enough);
  }
  unsigned n = 0;
  while (n < *nr && !finished_.empty()) {
    Entry& e = entries_[finished_.front()];
    finished_.pop_front();
    events[n].cookie = e.params.cookie;
    events[n].status = e.status;
    events[n].ret = e.ret;
    e.in_use = false;
    --outstanding_;
    ++n;
  }
  *nr = n;
  return Status::success();
}

void Batch::cancel() {
  std::unique_lock lock(mu_);
  for (unsigned i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (e.in_use && e.status == hipFileWaiting) {
      e.status = hipFileCanceled;
      e.ret = 0;
      finished_.push_back(i);
    }
  }
  changed_.notify_all();
  changed_.wait(lock, [&] { return running_ == 0; });
}

Status batch_setup(hipFileBatchHandle_t* out, unsigned max_nr) {
  if (out == nullptr || max_nr == 0 || max_nr > Batch::kMaxEntries) return Status::of(Error::InvalidValue);
  auto batch = std::make_shared<Batch>(max_nr);
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto handle = reinterpret_cast<hipFileBatchHandle_t>(r.next);
  r.next += 2;
  r.batches.emplace(handle, std::move(batch));
  *out = handle;
  return Status::success();
}

std::shared_ptr<Batch> batch_find(hipFileBatchHandle_t handle) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = r.batches.find(handle);
  return it == r.batches.end() ? nullptr : it->second;
}

void batch_destroy(hipFileBatchHandle_t handle) {
  std::shared_ptr<Batch> batch;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    auto it = r.batches.find(handle);
    if (it == r.batches.end()) return;
    batch = std::move(it->second);
    r.batches.erase(it);
  }
  batch->cancel();  // queued tasks still hold the object; they find their entries canceled
}

void batch_destroy_all() {
  std::unordered_map<hipFileBatchHandle_t, std::shared_ptr<Batch>> all;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    all.swap(r.batches);
  }
  for (auto& [handle, batch] : all) batch->cancel();
}

}  // namespace hipfile::engine
