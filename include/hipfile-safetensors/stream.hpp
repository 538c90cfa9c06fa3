// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/stream.hpp
 * @brief TensorStream: a checkpoint's tensors one at a time, in file order, each in device
 *        memory of its own as soon as its bytes are there, read ahead within a memory budget.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hipfile++/device_buffer.hpp>

#include "checkpoint.hpp"
#include "error.hpp"
#include "export.hpp"
#include "loaded.hpp"

namespace hipfile::safetensors {

/// Read-ahead when StreamOptions::budget is 0: at least this, and at least two of the largest
/// selected tensors (so one can be read while the one before is in use).
inline constexpr std::uint64_t kDefaultStreamBudget = std::uint64_t{512} << 20;

/// What a stream reads and where.
struct StreamOptions {
  int device = -1;                                   ///< -1: the calling thread's current device (another negative: refused)
  std::vector<std::string> names;                    ///< when not empty, only these (no_such_tensor otherwise)
  std::function<bool(const TensorInfo&)> filter;     ///< when set, only the tensors it accepts
  /// The most device memory held by tensors read but not yet taken by next(); 0: the default
  /// (kDefaultStreamBudget, raised to twice the largest selected tensor). A selected tensor
  /// larger than a budget set here is refused by open() (invalid_argument, naming it).
  std::uint64_t budget = 0;
  unsigned read_ahead_threads = 2;                   ///< tensors read at once, 1 to 16
  bool direct = false;                               ///< as LoadOptions::direct
};

/// One streamed tensor: its description and the device memory that holds it (and frees it).
struct StreamedTensor {
  LoadedTensor tensor;  ///< allocation is 0; data is memory.data() (nullptr for zero bytes)
  DeviceBuffer memory;
};

/**
 * @brief Reads the selected tensors of a checkpoint in file order (shard by shard, by offset),
 *        handing each over as soon as it is on the device.
 *
 * Ownership: move-only; it refers to the Checkpoint, which must outlive it. Destruction stops
 * the reading (waiting for reads in flight) and frees what was not taken. Thread safety: one
 * thread at a time calls next().
 */
class HIPFILE_ST_API TensorStream {
 public:
  TensorStream();
  TensorStream(TensorStream&&) noexcept;
  TensorStream& operator=(TensorStream&&) noexcept;
  ~TensorStream();

  /// Checks the options and the selection, registers the shards and starts reading.
  [[nodiscard]] static Result<TensorStream> open(const Checkpoint& checkpoint, const StreamOptions& options = {});

  /// The next tensor, waiting for its bytes; std::nullopt after the last. After a failure
  /// (returned once, at the tensor it concerns) every later call returns it again.
  [[nodiscard]] Result<std::optional<StreamedTensor>> next();

  [[nodiscard]] std::size_t size() const noexcept;         ///< tensors selected
  [[nodiscard]] std::uint64_t budget() const noexcept;     ///< the budget in force
  [[nodiscard]] std::uint64_t peak_held() const noexcept;  ///< most bytes read ahead and not yet taken, so far
  [[nodiscard]] LoadStats stats() const noexcept;          ///< bytes and reads so far; total_seconds since open

  struct State;

 private:
  std::unique_ptr<State> state_;
};

/// Streams @p checkpoint, calling @p take with each tensor in turn; stops at take's first false
/// (a success) or at a failure.
[[nodiscard]] HIPFILE_ST_API Result<LoadStats> stream(const Checkpoint& checkpoint, const StreamOptions& options,
                                                     const std::function<bool(StreamedTensor&&)>& take);

}  // namespace hipfile::safetensors
