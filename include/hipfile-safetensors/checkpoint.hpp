// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/checkpoint.hpp
 * @brief hipfile::safetensors::Checkpoint: an opened checkpoint (one file, several shards, or a
 *        Hugging Face model.safetensors.index.json), every header read and validated, no
 *        tensor data read yet.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "export.hpp"
#include "header.hpp"

namespace hipfile::safetensors {

/// The most shard files an index may name (each stays open while the checkpoint lives).
inline constexpr std::size_t kMaxShards = 10'000;

/// One file of a checkpoint.
struct Shard {
  std::string path;                             ///< as opened (index entries: joined to the index's folder)
  std::uint64_t size = 0;                       ///< its size when opened; load() refuses a changed size
  std::uint64_t data_start = 0;                 ///< 8 + header length: file offset of the data section
  std::map<std::string, std::string> metadata;  ///< its __metadata__
};

/**
 * @brief The tensors of a checkpoint and the open files that hold them.
 *
 * Opening reads only the headers (plain pread) and keeps each shard's descriptor open, so a
 * later load() reads the same files even if their names are reused. All validation happens
 * here: a Checkpoint that opened has tensors that tile their shards' data sections exactly.
 *
 * Ownership: move-only (owns the descriptors). Thread safety: const members may be used from
 * several threads at once; load() is const.
 */
class HIPFILE_ST_API Checkpoint {
 public:
  Checkpoint() = default;
  Checkpoint(Checkpoint&& other) noexcept;
  Checkpoint& operator=(Checkpoint&& other) noexcept;
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  /// One .safetensors file, or a Hugging Face index when @p path ends in ".json".
  [[nodiscard]] static Result<Checkpoint> open(const std::string& path);
  /// Several files as one checkpoint (a single ".json" path is an index, as in open(path)).
  [[nodiscard]] static Result<Checkpoint> open(std::span<const std::string> paths);

  /// Several .safetensors files; a tensor name in two of them is a duplicate_name error.
  [[nodiscard]] static Result<Checkpoint> open_shards(std::span<const std::string> paths);

  /**
   * @brief A Hugging Face index: {"metadata": {...}, "weight_map": {"tensor": "shard file"}}.
   *        Shards are named relative to the index's folder (plain relative paths only: no
   *        absolute path, no ".." component, no NUL; at most kMaxShards files) and opened in
   *        name order; every tensor the weight_map names must be in the shard it names
   *        (missing_tensor).
   */
  [[nodiscard]] static Result<Checkpoint> open_index(const std::string& index_path);

  [[nodiscard]] const std::vector<TensorInfo>& tensors() const noexcept { return tensors_; }
  [[nodiscard]] const std::vector<Shard>& shards() const noexcept { return shards_; }
  /// The tensor named @p name, or nullptr.
  [[nodiscard]] const TensorInfo* find(std::string_view name) const noexcept;
  /// The __metadata__ strings of all shards (where shards disagree, the first shard's value).
  [[nodiscard]] const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
  /// The index file's "metadata" values as JSON text ("total_size" → "14483464192"); empty
  /// without an index.
  [[nodiscard]] const std::map<std::string, std::string>& index_metadata() const noexcept { return index_meta_; }
  /// The index path, empty when the checkpoint was opened from shard files.
  [[nodiscard]] const std::string& index_path() const noexcept { return index_path_; }
  /// The bytes of all tensor data.
  [[nodiscard]] std::uint64_t bytes() const noexcept;
  /// The open descriptor of shard @p i (owned by the checkpoint: do not close it).
  [[nodiscard]] int shard_fd(std::size_t i) const noexcept { return fds_[i]; }

 private:
  Result<void> add_shard(const std::string& path, Errc open_error = Errc::io_error, const std::string& listed_in = "",
                         const std::string& first_tensor = "");
  Result<void> check_weight_map(const std::map<std::string, std::string>& weight_map,
                                const std::map<std::string, std::size_t>& shard_of_file);
  void close_shards() noexcept;

  std::vector<Shard> shards_;
  std::vector<int> fds_;  // one open descriptor per shard, closed with the checkpoint
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, std::string> index_meta_;
  std::string index_path_;
};

}  // namespace hipfile::safetensors
