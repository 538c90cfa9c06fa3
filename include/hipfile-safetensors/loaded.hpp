// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/loaded.hpp
 * @brief hipfile::safetensors::LoadedCheckpoint: tensors in device memory that it owns (one
 *        allocation per shard and device), as views, with typed access and release().
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <hipfile++/device_buffer.hpp>
#include <hipfile++/stats.hpp>

#include "dtype.hpp"
#include "error.hpp"
#include "export.hpp"

namespace hipfile::safetensors {

/// One loaded tensor: a view of device memory. `data` is a device address (never
/// dereference it on the host); it is nullptr for a tensor of zero bytes.
struct LoadedTensor {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  int device = -1;
  void* data = nullptr;
  std::size_t bytes = 0;
  std::size_t allocation = 0;  ///< index into allocations() (meaningless when bytes == 0)

  [[nodiscard]] std::string_view dtype_name() const noexcept { return safetensors::dtype_name(dtype); }
  [[nodiscard]] std::uint64_t elements() const noexcept {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

/// One device allocation (hipMalloc) holding the tensors of one shard on one device.
struct Allocation {
  void* data = nullptr;
  std::size_t bytes = 0;
  int device = -1;
  std::size_t shard = 0;
};

/// How a load went: what the reads moved and where the time went (steady clock).
struct LoadStats {
  std::uint64_t reads = 0;         ///< hipFileRead calls (one per shard and device for a full load)
  std::uint64_t bytes_read = 0;    ///< bytes they moved: the tensors plus gaps read between them
  // Where the wall time of load() went, in order; the six add up to total_seconds
  // (doc/safetensors.md, "Where a load's time goes").
  double plan_seconds = 0;         ///< checking the options, selection, devices and sizes; planning
  double allocate_seconds = 0;     ///< the hipMallocs
  double register_seconds = 0;     ///< registering the shards' files, an implicit driver open included
  double read_seconds = 0;         ///< from the first read's start to the last read's end
  double finish_seconds = 0;       ///< deregistering the files and describing the tensors
  double total_seconds = 0;        ///< the whole call
  /// What the library's phases (hipfile::stats::phases) took during the load, as deltas: the
  /// driver open inside register_seconds, and, inside read_seconds, the engine's start, its
  /// threads, pinned staging, read-path trials and mapping (thread time, which may overlap).
  hipfile::stats::Phases library_phases{};
  /// Bytes the library read during the load on each of its paths, indexed by
  /// hipfile::stats::Path (engine, host, cufile, amd), from its level-1 statistics: 0 at
  /// statistics level 0, and without the preads of strided slices, which bypass the library.
  std::array<std::uint64_t, 4> path_bytes{};

  /// bytes_read over total_seconds, in GB/s (0 for an instant load).
  [[nodiscard]] double gb_per_s() const noexcept { return total_seconds > 0 ? bytes_read / total_seconds / 1e9 : 0; }
};

/**
 * @brief The result of load(): owns the allocations; tensors() are views into them.
 *
 * Ownership: move-only; destruction (or reset()) hipFrees every allocation. release() hands
 * the allocations to the caller (to adopt into another framework) and keeps tensors()
 * describing them. Thread safety: const members from any thread.
 */
class HIPFILE_ST_API LoadedCheckpoint {
 public:
  LoadedCheckpoint() = default;
  LoadedCheckpoint(LoadedCheckpoint&&) noexcept = default;
  LoadedCheckpoint& operator=(LoadedCheckpoint&&) noexcept = default;
  LoadedCheckpoint(const LoadedCheckpoint&) = delete;
  LoadedCheckpoint& operator=(const LoadedCheckpoint&) = delete;
  ~LoadedCheckpoint() = default;

  /// In checkpoint order (shard, then offset).
  [[nodiscard]] const std::vector<LoadedTensor>& tensors() const noexcept { return tensors_; }
  [[nodiscard]] const LoadedTensor* find(std::string_view name) const noexcept;
  /// The allocations still owned (empty after release()).
  [[nodiscard]] const std::vector<Allocation>& allocations() const noexcept { return allocations_; }
  /// The bytes of all loaded tensors.
  [[nodiscard]] std::uint64_t bytes() const noexcept;

  /**
   * @brief The device bytes of tensor @p name as std::span<T> (device addresses).
   * @return no_such_tensor; dtype_mismatch when the tensor's dtype is not dtype_of<T>;
   *         invalid_argument when its address is not aligned for T (a file whose offsets
   *         are not multiples of the element size).
   */
  template <class T>
  [[nodiscard]] Result<std::span<T>> span(std::string_view name) const {
    static_assert(has_dtype<T>, "T has no safetensors dtype (use bytes() for F4/F6 or raw access)");
    auto t = typed(name, dtype_of<T>::value, alignof(T));
    if (!t) return hipfile::unexpected(std::move(t.error()));
    return std::span<T>(static_cast<T*>((*t)->data), (*t)->bytes / sizeof(T));
  }
  /// The device bytes of tensor @p name, whatever its dtype.
  [[nodiscard]] Result<std::span<std::byte>> bytes(std::string_view name) const;

  /**
   * @brief Gives up ownership: the caller must hipFree every returned data pointer (after
   *        the tensors are no longer used). tensors() keep their addresses.
   */
  [[nodiscard]] std::vector<Allocation> release() noexcept;
  /// Frees every allocation now; the object becomes empty.
  void reset() noexcept;

  /// What the load moved and how long its parts took.
  [[nodiscard]] const LoadStats& stats() const noexcept { return stats_; }

  /// For load(): records the stats.
  void set_stats(const LoadStats& s) noexcept { stats_ = s; }
  /// For load(): adds an owned allocation (its index is allocations().size() before).
  void add_allocation(DeviceBuffer buffer, std::size_t shard);
  /// For load(): adds a tensor view.
  void add_tensor(LoadedTensor t);

 private:
  // span<T>'s checks, the same for every T: the tensor, or no_such_tensor, dtype_mismatch
  // (not @p want) or invalid_argument (not aligned to @p alignment).
  [[nodiscard]] Result<const LoadedTensor*> typed(std::string_view name, Dtype want, std::size_t alignment) const;

  std::vector<DeviceBuffer> owned_;
  std::vector<Allocation> allocations_;
  std::vector<LoadedTensor> tensors_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  LoadStats stats_;
};

}  // namespace hipfile::safetensors
