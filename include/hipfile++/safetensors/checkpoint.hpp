// SPDX-License-Identifier: MIT
/**
 * @file safetensors/checkpoint.hpp
 * @brief hipfile::safetensors::Checkpoint: an opened checkpoint (one file, several shards, or a
 *        Hugging Face model.safetensors.index.json), every header read and validated, no
 *        tensor data read yet.
 */
#pragma once

#include <fcntl.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detail/fd.hpp"
#include "detail/json.hpp"
#include "error.hpp"
#include "header.hpp"

namespace hipfile::safetensors {

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
class Checkpoint {
 public:
  Checkpoint() = default;
  Checkpoint(Checkpoint&&) noexcept = default;
  Checkpoint& operator=(Checkpoint&&) noexcept = default;
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  /// One .safetensors file, or a Hugging Face index when @p path ends in ".json".
  [[nodiscard]] static Result<Checkpoint> open(const std::string& path) {
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) return open_index(path);
    return open_shards(std::span<const std::string>(&path, 1));
  }
  /// Several files as one checkpoint (a single ".json" path is an index, as in open(path)).
  [[nodiscard]] static Result<Checkpoint> open(std::span<const std::string> paths) {
    if (paths.size() == 1) return open(paths[0]);
    return open_shards(paths);
  }

  /// Several .safetensors files; a tensor name in two of them is a duplicate_name error.
  [[nodiscard]] static Result<Checkpoint> open_shards(std::span<const std::string> paths) {
    if (paths.empty()) return detail::fail(Errc::invalid_argument, "", "", "no checkpoint file given");
    Checkpoint c;
    for (const auto& p : paths)
      if (auto r = c.add_shard(p); !r) return detail::fail(r.error());
    return c;
  }

  /**
   * @brief A Hugging Face index: {"metadata": {...}, "weight_map": {"tensor": "shard file"}}.
   *        Shards are named relative to the index's folder and opened in name order; every
   *        tensor the weight_map names must be in the shard it names (missing_tensor).
   */
  [[nodiscard]] static Result<Checkpoint> open_index(const std::string& index_path);

  [[nodiscard]] const std::vector<TensorInfo>& tensors() const noexcept { return tensors_; }
  [[nodiscard]] const std::vector<Shard>& shards() const noexcept { return shards_; }
  /// The tensor named @p name, or nullptr.
  [[nodiscard]] const TensorInfo* find(std::string_view name) const noexcept {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &tensors_[it->second];
  }
  /// The __metadata__ strings of all shards (where shards disagree, the first shard's value).
  [[nodiscard]] const std::map<std::string, std::string>& metadata() const noexcept { return metadata_; }
  /// The index file's "metadata" values as JSON text ("total_size" → "14483464192"); empty
  /// without an index.
  [[nodiscard]] const std::map<std::string, std::string>& index_metadata() const noexcept { return index_meta_; }
  /// The index path, empty when the checkpoint was opened from shard files.
  [[nodiscard]] const std::string& index_path() const noexcept { return index_path_; }
  /// The bytes of all tensor data.
  [[nodiscard]] std::uint64_t bytes() const noexcept {
    std::uint64_t n = 0;
    for (const auto& t : tensors_) n += t.bytes();
    return n;
  }
  /// The open descriptor of shard @p i (owned by the checkpoint: do not close it).
  [[nodiscard]] int shard_fd(std::size_t i) const noexcept { return fds_[i].get(); }

 private:
  Result<void> add_shard(const std::string& path, Errc open_error = Errc::io_error, const std::string& listed_in = "",
                         const std::string& first_tensor = "");
  Result<void> check_weight_map(const std::map<std::string, std::string>& weight_map,
                                const std::map<std::string, std::size_t>& shard_of_file);

  std::vector<Shard> shards_;
  std::vector<detail::UniqueFd> fds_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, std::string> index_meta_;
  std::string index_path_;
};

// Opens one shard and appends its tensors. For an index's shard, an open failure is
// missing_shard, reported against the index file and the first tensor that names the shard.
inline Result<void> Checkpoint::add_shard(const std::string& path, Errc open_error, const std::string& listed_in,
                                          const std::string& first_tensor) {
  detail::UniqueFd fd(hipfile::detail::open_retry(path.c_str(), O_RDONLY | O_CLOEXEC, 0));
  if (fd.get() < 0) {
    const auto cause = hipfile::Error::last_errno();
    if (open_error == Errc::missing_shard)
      return detail::fail(open_error, listed_in, first_tensor, "shard '" + path + "' cannot be opened", cause);
    return detail::fail(open_error, path, "", "cannot open", cause);
  }
  const std::int64_t size = detail::file_size(fd.get());
  if (size < 0) return detail::fail(Errc::io_error, path, "", "fstat", hipfile::Error::from_errno(static_cast<int>(-size)));
  auto header = read_header(path, fd.get(), static_cast<std::uint64_t>(size));
  if (!header) return detail::fail(header.error());
  const std::size_t index = shards_.size();
  for (auto& t : header->tensors) {
    t.shard = index;
    if (auto it = by_name_.find(t.name); it != by_name_.end())
      return detail::fail(Errc::duplicate_name, path, t.name, "is also in " + shards_[tensors_[it->second].shard].path);
    by_name_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
  }
  for (const auto& [k, v] : header->metadata) metadata_.emplace(k, v);
  shards_.push_back(Shard{path, static_cast<std::uint64_t>(size), header->data_start, std::move(header->metadata)});
  fds_.push_back(std::move(fd));
  return {};
}

namespace detail {

/// The index file's text (bounded like a header), or why it cannot be read.
inline Result<std::string> read_index_text(const std::string& path) {
  UniqueFd fd(hipfile::detail::open_retry(path.c_str(), O_RDONLY | O_CLOEXEC, 0));
  if (fd.get() < 0) return fail(Errc::io_error, path, "", "cannot open", hipfile::Error::last_errno());
  const std::int64_t size = file_size(fd.get());
  if (size < 0) return fail(Errc::io_error, path, "", "fstat", hipfile::Error::from_errno(static_cast<int>(-size)));
  if (static_cast<std::uint64_t>(size) > kMaxHeaderBytes)
    return fail(Errc::invalid_index, path, "", "index is " + std::to_string(size) + " bytes, above the limit of 100000000");
  std::string text(static_cast<std::size_t>(size), '\0');
  if (int e = pread_exact(fd.get(), text.data(), text.size(), 0); e != 0)
    return fail(Errc::io_error, path, "", "reading the index", hipfile::Error::from_errno(e));
  return text;
}

/// The index's weight_map (tensor → shard file name) and metadata (key → JSON text).
inline Result<void> parse_index(const std::string& path, std::string_view text, std::map<std::string, std::string>& weight_map,
                                std::map<std::string, std::string>& metadata) {
  if (auto bad = utf8_error(text))
    return fail(Errc::invalid_utf8, path, "", "index is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  Parsed parsed = parse(text);
  if (!parsed.error.empty()) return fail(Errc::invalid_json, path, "", "index is not valid JSON: " + parsed.error);
  if (!parsed.doc.is_object()) return fail(Errc::invalid_index, path, "", "index is " + kind(parsed.doc) + ", not a JSON object");
  if (!parsed.duplicate.empty())
    return fail(Errc::duplicate_name, path, parsed.duplicate_depth == 2 ? parsed.duplicate : "",
                parsed.duplicate_depth == 2 ? "appears twice in the index"
                                            : "key '" + parsed.duplicate + "' appears twice in one object of the index");
  auto wm = parsed.doc.find("weight_map");
  if (wm == parsed.doc.end() || !wm->is_object())
    return fail(Errc::invalid_index, path, "", "index has no \"weight_map\" object");
  for (const auto& [name, shard] : wm->items()) {
    if (!shard.is_string() || shard.get_ref<const std::string&>().empty())
      return fail(Errc::invalid_index, path, name, "weight_map value is " + kind(shard) + ", not a shard file name");
    weight_map.emplace(name, shard.get_ref<const std::string&>());
  }
  if (auto md = parsed.doc.find("metadata"); md != parsed.doc.end() && md->is_object())
    for (const auto& [k, v] : md->items()) metadata.emplace(k, v.is_string() ? v.get_ref<const std::string&>() : text_of(v));
  return {};
}

}  // namespace detail

inline Result<void> Checkpoint::check_weight_map(const std::map<std::string, std::string>& weight_map,
                                                 const std::map<std::string, std::size_t>& shard_of_file) {
  for (const auto& [name, file] : weight_map) {
    const std::size_t want = shard_of_file.at(file);
    const TensorInfo* t = find(name);
    if (t == nullptr || t->shard != want)
      return detail::fail(Errc::missing_tensor, shards_[want].path, name,
                          "is listed for this shard in " + index_path_ + " but is not in its header");
  }
  return {};
}

inline Result<Checkpoint> Checkpoint::open_index(const std::string& index_path) {
  auto text = detail::read_index_text(index_path);
  if (!text) return detail::fail(text.error());
  std::map<std::string, std::string> weight_map, meta;
  if (auto r = detail::parse_index(index_path, *text, weight_map, meta); !r) return detail::fail(r.error());
  const auto slash = index_path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : index_path.substr(0, slash + 1);
  std::map<std::string, std::string> first_tensor;  // shard file → the first tensor naming it
  for (const auto& [name, file] : weight_map) first_tensor.emplace(file, name);
  Checkpoint c;
  c.index_path_ = index_path;
  c.index_meta_ = std::move(meta);
  std::map<std::string, std::size_t> shard_of_file;
  for (const auto& [file, name] : first_tensor) {
    shard_of_file.emplace(file, c.shards_.size());
    const std::string path = file.front() == '/' ? file : folder + file;
    if (auto r = c.add_shard(path, Errc::missing_shard, index_path, name); !r) return detail::fail(r.error());
  }
  if (auto r = c.check_weight_map(weight_map, shard_of_file); !r) return detail::fail(r.error());
  return c;
}

}  // namespace hipfile::safetensors
