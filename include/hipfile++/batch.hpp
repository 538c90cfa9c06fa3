// SPDX-License-Identifier: MIT
/**
 * @file batch.hpp
 * @brief hipfile::Batch, the owner of a hipFile batch (hipFileBatchIOSetUp ... Destroy).
 *
 * Move-only; the destructor destroys the batch, which cancels what has not started and waits
 * for the operations that run. Every call returns Result; nothing throws.
 */
#pragma once

#include <hipfile/hipfile.h>

#include <time.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>

#include "error.hpp"

namespace hipfile {

class Batch {
 public:
  /// A batch of up to @p max_nr (1..128) outstanding operations.
  [[nodiscard]] static Result<Batch> setup(unsigned max_nr) noexcept {
    hipFileBatchHandle_t h = nullptr;
    const hipFileError_t s = hipFileBatchIOSetUp(&h, max_nr);
    if (s.err != hipFileSuccess) return std::unexpected(Error::from_status(s));
    return Batch(h);
  }

  Batch(Batch&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
  Batch& operator=(Batch&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, nullptr);
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
    if (s.err != hipFileSuccess) return std::unexpected(Error::from_status(s));
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
    if (s.err != hipFileSuccess) return std::unexpected(Error::from_status(s));
    return events.first(nr);
  }

  /// Cancels what has not started; waits for what runs. Canceled operations are reported by poll.
  [[nodiscard]] Result<void> cancel() const noexcept {
    const hipFileError_t s = hipFileBatchIOCancel(handle_);
    if (s.err != hipFileSuccess) return std::unexpected(Error::from_status(s));
    return {};
  }

  [[nodiscard]] hipFileBatchHandle_t handle() const noexcept { return handle_; }
  /// Gives up ownership: the caller destroys the returned handle.
  [[nodiscard]] hipFileBatchHandle_t release() noexcept { return std::exchange(handle_, nullptr); }

 private:
  explicit Batch(hipFileBatchHandle_t h) noexcept : handle_(h) {}
  void reset() noexcept {
    if (handle_ != nullptr) hipFileBatchIODestroy(std::exchange(handle_, nullptr));
  }
  hipFileBatchHandle_t handle_ = nullptr;
};

/// One batch operation (a read or write of @p size bytes at @p file_offset).
[[nodiscard]] inline hipFileIOParams_t batch_op(hipFileOpcode_t opcode, hipFileHandle_t fh, void* base,
                                                std::size_t size, hoff_t file_offset, hoff_t buffer_offset = 0,
                                                void* cookie = nullptr) noexcept {
  hipFileIOParams_t p{};
  p.mode = hipFileBatch;
  p.u.batch.devPtr_base = base;
  p.u.batch.file_offset = file_offset;
  p.u.batch.devPtr_offset = buffer_offset;
  p.u.batch.size = size;
  p.fh = fh;
  p.opcode = opcode;
  p.cookie = cookie;
  return p;
}

}  // namespace hipfile
