// SPDX-License-Identifier: MIT
/**
 * @file batch.hpp
 * @brief hipfile::Batch (many reads and writes submitted together) and hipfile::read_all /
 *        write_all (a list of (span, offset) requests of one File, every result returned).
 *
 * Two interfaces on one owner:
 * - C++ terms: `add_read(file, span, offset)` / `add_write(...)` any number of times, then
 *   `submit()` and `wait()`, which returns one decoded Result<std::size_t> per entry in the
 *   order added. There is no capacity: entries are split across C batches of up to 128.
 *   A zero-length entry completes as 0 without reaching the library. An entry with a negative
 *   offset or a range beyond INT64_MAX completes as hipFileInvalidValue without reaching it (what
 *   hipFileBatchIOSubmit gives a C caller), its message naming the offset.
 * - The raw C structs: `setup(max_nr)`, `submit(span<const hipFileIOParams_t>)`, `poll`,
 *   `cancel`; Pending::decode() (or Error::from_bytes_result) turns an event into a Result.
 *
 * Move-only; the destructor destroys every C batch, which cancels what has not started and
 * waits for the operations that run. Every call returns Result; nothing throws (a failed
 * allocation of the entry list terminates, as under -fno-exceptions).
 */
#pragma once

#include <hipfile/hipfile.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "error.hpp"
#include "file.hpp"
#include "pending.hpp"
#include "registration.hpp"
#include "span.hpp"

namespace hipfile {

/**
 * @brief Many reads and writes in flight together; see the file comment for the two interfaces.
 *
 * Lifetime: every File and span given to add_read/add_write must stay alive until wait()
 * has returned (or the Batch is destroyed). Thread safety: one Batch must not be used from two
 * threads at once.
 */
class Batch {
 public:
  /// How many operations one C batch holds (the C API's limit); C++-terms batches split by it.
  static constexpr std::size_t kMaxPerCBatch = 128;

  /// Empty, for the C++-terms interface (add_read / add_write / submit() / wait()).
  Batch() noexcept = default;

  /// A raw batch of up to @p max_nr (1..128) outstanding operations.
  [[nodiscard]] static Result<Batch> setup(unsigned max_nr) noexcept {
    hipFileBatchHandle_t h = nullptr;
    const hipFileError_t s = hipFileBatchIOSetUp(&h, max_nr);
    if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
    return Batch(h);
  }

  Batch(Batch&& o) noexcept
      : handle_(std::exchange(o.handle_, nullptr)), entries_(std::move(o.entries_)),
        contexts_(std::move(o.contexts_)), results_(std::move(o.results_)),
        groups_(std::move(o.groups_)), submitted_(std::exchange(o.submitted_, 0)) {
    o.clear();
  }
  Batch& operator=(Batch&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
      entries_ = std::move(o.entries_);
      contexts_ = std::move(o.contexts_);
      results_ = std::move(o.results_);
      groups_ = std::move(o.groups_);
      submitted_ = std::exchange(o.submitted_, 0);
      o.clear();
    }
    return *this;
  }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() { reset(); }

  /// Queues every operation, or none (InvalidValue, HandleNotRegistered, BatchFull).
  [[nodiscard]] Result<void> submit(std::span<const hipFileIOParams_t> ops) const noexcept {
    const hipFileError_t s = hipFileBatchIOSubmit(handle_, static_cast<unsigned>(ops.size()),
                                                  const_cast<hipFileIOParams_t*>(ops.data()), 0);
    if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
    return {};
  }

  /**
   * @brief Waits until @p min_nr operations have finished (or the timeout passes; none waits
   * forever, zero polls) and returns the filled prefix of @p events. Each finished operation
   * is reported once.
   */
  [[nodiscard]] Result<std::span<hipFileIOEvents_t>> poll(
      unsigned min_nr, std::span<hipFileIOEvents_t> events,
      std::optional<std::chrono::nanoseconds> timeout = std::nullopt) const noexcept {
    unsigned nr = static_cast<unsigned>(events.size());
    timespec ts{};
    timespec* tp = nullptr;
    if (timeout) {
      const auto ns = timeout->count() < 0 ? 0 : timeout->count();
      ts.tv_sec = static_cast<time_t>(ns / 1000000000);
      ts.tv_nsec = static_cast<long>(ns % 1000000000);
      tp = &ts;
    }
    const hipFileError_t s = hipFileBatchIOGetStatus(handle_, min_nr, &nr, events.data(), tp);
    if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
    return events.first(nr);
  }

  /// Cancels what has not started; waits for what runs. Canceled operations are reported by poll.
  [[nodiscard]] Result<void> cancel() const noexcept {
    const hipFileError_t s = hipFileBatchIOCancel(handle_);
    if (s.err != hipFileSuccess) return unexpected(Error::from_status(s));
    return {};
  }

  /// Adds a read of dst.size_bytes() bytes at @p file_offset of @p file into @p dst.
  template <Writable T, std::size_t N>
  void add_read(const File& file, std::span<T, N> dst, Offset file_offset) noexcept {
    add(hipFileBatchRead, file, detail::writable_bytes(dst).data(), dst.size_bytes(), file_offset, 0);
  }
  void add_read(const File& file, std::span<std::byte> dst, Offset file_offset) noexcept {
    add(hipFileBatchRead, file, dst.data(), dst.size(), file_offset, 0);
  }
  /// Adds a write of src.size_bytes() bytes from @p src at @p file_offset of @p file.
  template <Transferable T, std::size_t N>
  void add_write(const File& file, std::span<T, N> src, Offset file_offset) noexcept {
    add(hipFileBatchWrite, file, src.data(), src.size_bytes(), file_offset, 0);
  }
  void add_write(const File& file, std::span<const std::byte> src, Offset file_offset) noexcept {
    add(hipFileBatchWrite, file, src.data(), src.size(), file_offset, 0);
  }
  /// Adds a read into @p dst, a subspan of reg.region() (registration base + offset).
  template <Writable T, std::size_t N>
  void add_read(const File& file, const Registration& reg, std::span<T, N> dst, Offset file_offset) noexcept {
    add_registered(hipFileBatchRead, file, reg, detail::writable_bytes(dst), file_offset);
  }
  /// Adds a write from @p src, a subspan of reg.region().
  template <Transferable T, std::size_t N>
  void add_write(const File& file, const Registration& reg, std::span<T, N> src, Offset file_offset) noexcept {
    add_registered(hipFileBatchWrite, file, reg, detail::readable_bytes(src), file_offset);
  }

  /// Entries added since the last wait().
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }

  /**
   * @brief Submits every entry added since the last submit(), in C batches of up to 128.
   *        When the library refuses a C batch, its entries are submitted one by one so that
   *        only the refused entries fail; their Errors are in wait()'s results.
   * @return the first refusal, or success (entries still run even when this reports one).
   */
  [[nodiscard]] Result<void> submit() noexcept {
    Result<void> first;
    while (submitted_ < entries_.size()) {
      const std::size_t end = std::min(entries_.size(), submitted_ + kMaxPerCBatch);
      if (auto r = submit_group(submitted_, end); !r && first) first = unexpected(r.error());
      submitted_ = end;
    }
    return first;
  }

  /**
   * @brief Submits what is not submitted yet, waits for every entry, and returns one result
   *        per entry in the order added: bytes moved (short only at end of file) or the Error.
   *        The Batch is empty afterwards and may be filled again.
   */
  [[nodiscard]] std::vector<Result<std::size_t>> wait() noexcept {
    (void)submit();
    std::vector<hipFileIOEvents_t> events(kMaxPerCBatch);
    for (Group& g : groups_) {
      while (g.outstanding > 0) collect(g, events);
      hipFileBatchIODestroy(std::exchange(g.handle, nullptr));
    }
    std::vector<Result<std::size_t>> out;
    out.reserve(results_.size());
    for (auto& r : results_) out.push_back(r ? std::move(*r) : Result<std::size_t>(unexpected(Error())));
    clear_entries();
    return out;
  }

  [[nodiscard]] hipFileBatchHandle_t handle() const noexcept { return handle_; }
  /// Gives up ownership: the caller destroys the returned handle.
  [[nodiscard]] hipFileBatchHandle_t release() noexcept { return std::exchange(handle_, nullptr); }

 private:
  struct Group {  // one C batch: entries [begin, end), how many are not reported yet
    hipFileBatchHandle_t handle = nullptr;
    std::size_t begin = 0, end = 0;
    std::size_t outstanding = 0;
  };

  explicit Batch(hipFileBatchHandle_t h) noexcept : handle_(h) {}

  void reset() noexcept {
    if (handle_ != nullptr) hipFileBatchIODestroy(std::exchange(handle_, nullptr));
    clear_entries();
  }
  // Destroying the C batches cancels what has not started and waits for what runs.
  void clear_entries() noexcept {
    for (Group& g : groups_)
      if (g.handle != nullptr) hipFileBatchIODestroy(std::exchange(g.handle, nullptr));
    clear();
  }
  void clear() noexcept {
    entries_.clear();
    contexts_.clear();
    results_.clear();
    groups_.clear();
    submitted_ = 0;
  }

  void add(hipFileOpcode_t opcode, const File& file, const void* base, std::size_t size, Offset off,
           Offset buffer_offset) noexcept {
    // The cookie is the entry's index, so wait() can put each event back in order.
    const auto index = reinterpret_cast<void*>(static_cast<std::uintptr_t>(entries_.size()));
    entries_.push_back(batch_op(opcode, file.handle(), base, size, off, buffer_offset, index));
    contexts_.push_back(file.context(opcode == hipFileBatchRead ? Operation::read : Operation::write, off, size));
    results_.emplace_back();
    if (!detail::valid_range(off, size)) {  // as hipFileBatchIOSubmit would refuse it
      fail(entries_.size() - 1, detail::bad_range_op(off, size));
    } else if (size == 0) {
      results_.back().emplace(std::size_t{0});
    }
  }
  // Entry @p i failed with @p e: the error gets the entry's context, and an explanation where
  // the entry's bytes run past their device allocation.
  void fail(std::size_t i, const Error& e) noexcept {
    const auto& io = entries_[i].u.batch;
    const void* mem = static_cast<const std::byte*>(io.devPtr_base) + (io.devPtr_offset > 0 ? io.devPtr_offset : 0);
    const Error explained = detail::explain_overrun(e, mem, io.size);
    results_[i].emplace(unexpected(detail::stale_handle(explained, entries_[i].fh).in(contexts_[i])));
  }
  void finish(std::size_t i, Result<std::size_t> r) noexcept {
    if (r) {
      results_[i].emplace(std::move(r));
    } else {
      fail(i, r.error());
    }
  }
  void add_registered(hipFileOpcode_t opcode, const File& file, const Registration& reg,
                      std::span<const std::byte> s, Offset off) noexcept {
    add(opcode, file, reg.base(), s.size(), off, reg.offset_of(s));
    if (!reg) {
      fail(entries_.size() - 1, Error::from_op(hipFileMemoryNotRegistered));
    } else if (!reg.contains(s)) {
      fail(entries_.size() - 1, detail::outside_registration(reg, s));
    }
  }

  // Submits the entries [begin, end) that have no result yet as one C batch; if the library
  // refuses it (all or nothing), retries them one by one so each refusal lands on its entry.
  Result<void> submit_group(std::size_t begin, std::size_t end) noexcept {
    std::vector<hipFileIOParams_t> todo;
    for (std::size_t i = begin; i < end; ++i)
      if (!results_[i]) todo.push_back(entries_[i]);
    if (todo.empty()) return {};
    Group g{nullptr, begin, end, 0};
    if (auto r = check(hipFileBatchIOSetUp(&g.handle, static_cast<unsigned>(todo.size()))); !r) {
      for (std::size_t i = begin; i < end; ++i)
        if (!results_[i]) fail(i, r.error().in(Operation::batch));
      return unexpected(r.error().in(Operation::batch));
    }
    groups_.push_back(g);
    Group& group = groups_.back();
    if (check(hipFileBatchIOSubmit(group.handle, static_cast<unsigned>(todo.size()), todo.data(), 0))) {
      group.outstanding = todo.size();
      return {};
    }
    Result<void> first;
    for (hipFileIOParams_t& p : todo) {
      auto r = check(hipFileBatchIOSubmit(group.handle, 1, &p, 0));
      if (r) {
        ++group.outstanding;
        continue;
      }
      fail(index_of(p.cookie), r.error());
      if (first) first = unexpected(results_[index_of(p.cookie)]->error());
    }
    return first;
  }

  // Waits for at least one event of @p g and stores every event it gets.
  void collect(Group& g, std::span<hipFileIOEvents_t> events) noexcept {
    unsigned nr = static_cast<unsigned>(std::min(events.size(), g.outstanding));
    const hipFileError_t s = hipFileBatchIOGetStatus(g.handle, 1, &nr, events.data(), nullptr);
    if (s.err != hipFileSuccess) {
      // The events cannot be collected: destroying the batch waits for its entries, whose
      // results are unknown, so they report the failure of GetStatus.
      hipFileBatchIODestroy(std::exchange(g.handle, nullptr));
      for (std::size_t i = g.begin; i < g.end; ++i)
        if (!results_[i]) fail(i, Error::from_status(s).in(Operation::batch));
      g.outstanding = 0;
      return;
    }
    for (unsigned i = 0; i < nr; ++i) finish(index_of(events[i].cookie), Pending<>::decode(events[i]));
    g.outstanding -= nr;
  }

  static std::size_t index_of(const void* cookie) noexcept {
    return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(cookie));
  }

  hipFileBatchHandle_t handle_ = nullptr;        // the raw interface's batch
  std::vector<hipFileIOParams_t> entries_;       // C++ terms: in the order added
  std::vector<Context> contexts_;                // what each entry's Error says it was
  std::vector<std::optional<Result<std::size_t>>> results_;
  std::vector<Group> groups_;
  std::size_t submitted_ = 0;                    // entries_[0, submitted_) are submitted
};

/// One request of read_all(): read dst.size() bytes at @p offset into @p dst.
struct ReadRequest {
  std::span<std::byte> dst;
  Offset offset = 0;

  ReadRequest() noexcept = default;
  ReadRequest(std::span<std::byte> d, Offset off) noexcept : dst(d), offset(off) {}
  /// From a typed span: `{buf.as<float>(), 4096}`.
  template <Writable T, std::size_t N>
  ReadRequest(std::span<T, N> d, Offset off) noexcept : dst(detail::writable_bytes(d)), offset(off) {}
};
/// One request of write_all(): write src.size() bytes from @p src at @p offset.
struct WriteRequest {
  std::span<const std::byte> src;
  Offset offset = 0;

  WriteRequest() noexcept = default;
  WriteRequest(std::span<const std::byte> s, Offset off) noexcept : src(s), offset(off) {}
  template <Transferable T, std::size_t N>
  WriteRequest(std::span<T, N> s, Offset off) noexcept : src(detail::readable_bytes(s)), offset(off) {}
};

/**
 * @brief Reads every request of @p requests from @p file, all in flight together (a Batch),
 *        and returns one result per request in order (count, short only at end of file, or Error).
 */
[[nodiscard]] inline std::vector<Result<std::size_t>> read_all(const File& file,
                                                               std::span<const ReadRequest> requests) noexcept {
  Batch batch;
  for (const ReadRequest& r : requests) batch.add_read(file, r.dst, r.offset);
  return batch.wait();
}
/// Writes every request to @p file, all in flight together; one result per request in order.
[[nodiscard]] inline std::vector<Result<std::size_t>> write_all(const File& file,
                                                                std::span<const WriteRequest> requests) noexcept {
  Batch batch;
  for (const WriteRequest& r : requests) batch.add_write(file, r.src, r.offset);
  return batch.wait();
}

}  // namespace hipfile
