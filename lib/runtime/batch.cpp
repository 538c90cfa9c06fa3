// SPDX-License-Identifier: MIT
#include "runtime/batch.hpp"

#include <chrono>
#include <cstdint>

#include "runtime/dispatch.hpp"
#include "runtime/driver.hpp"
#include "runtime/executor.hpp"
#include "runtime/instance.hpp"

namespace hipfile::engine {

Batch::Batch(unsigned capacity) : entries_(capacity) {}

namespace {

// One operation as submitted: a known mode and opcode, a registered handle, a region inside its
// memory.
Status check_entry(const Driver& driver, const BatchIo& io) {
  if (!io.known_op) return Status::of(Error::InvalidValue);
  if (!driver.files.find(io.file)) return Status::of(Error::HandleNotRegistered);
  return check_region(io.base, io.size, io.file_offset, io.buffer_offset);
}

}  // namespace

Status Batch::submit(unsigned nr, const BatchIo* ios) {
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

bool Batch::commit(unsigned nr, const BatchIo* ios, std::vector<std::pair<unsigned, std::uint64_t>>& slots) {
  std::lock_guard lock(mu_);
  if (nr > entries_.size() - outstanding_) return false;
  unsigned next = 0;
  for (unsigned i = 0; i < nr; ++i) {
    while (entries_[next].in_use) ++next;
    Entry& e = entries_[next];
    e.io = ios[i];
    e.state = BatchState::Waiting;
    e.result = IoResult{};
    e.in_use = true;
    ++e.generation;
    slots[i] = {next, e.generation};
  }
  outstanding_ += nr;
  return true;
}

void Batch::run(unsigned index, std::uint64_t generation) {
  BatchIo io;
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[index];
    if (e.generation != generation || e.state != BatchState::Waiting) return;  // canceled
    e.state = BatchState::Pending;
    io = e.io;
    ++running_;
  }
  IoResult r;
  try {
    // A batch has no stream of its own: its entries follow the NULL stream, like hipFileRead and
    // hipFileWrite, so a write sees what a pageable hipMemcpy or a NULL-stream kernel produced
    // before the submit (the executor's lanes are non-blocking streams).
    r = do_io(io.dir, io.file, io.base, io.size, io.file_offset, io.buffer_offset, Ordering::AfterNullStream);
  } catch (...) {
    r.status = Status::of(Error::InternalError);
  }
  {
    std::lock_guard lock(mu_);
    Entry& e = entries_[index];
    e.state = r.ok() ? BatchState::Complete : BatchState::Failed;
    e.result = r;
    finished_.push_back(index);
    --running_;
  }
  changed_.notify_all();
}

Status Batch::get_status(unsigned min_nr, unsigned& nr, BatchEvent* events, const timespec* timeout) {
  if ((events == nullptr && nr > 0) || min_nr > nr) return Status::of(Error::InvalidValue);
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
  while (n < nr && !finished_.empty()) {
    Entry& e = entries_[finished_.front()];
    finished_.pop_front();
    events[n] = {e.io.cookie, e.state, e.result};
    e.in_use = false;
    --outstanding_;
    ++n;
  }
  nr = n;
  return Status::success();
}

void Batch::cancel() {
  std::unique_lock lock(mu_);
  for (unsigned i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (e.in_use && e.state == BatchState::Waiting) {
      e.state = BatchState::Canceled;
      e.result = IoResult{};
      finished_.push_back(i);
    }
  }
  changed_.notify_all();
  changed_.wait(lock, [&] { return running_ == 0; });
}

}  // namespace hipfile::engine
