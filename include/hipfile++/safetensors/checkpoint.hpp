// SPDX-License-Identifier: MIT
/**
 * @file safetensors/checkpoint.hpp
 * @brief hipfile::safetensors::Checkpoint: an opened checkpoint (one file, several shards, or a
 *        Hugging Face model.safetensors.index.json), every header read and validated, no
 *        tensor data read yet.
 */
#pragma once

#include <fcntl.h>

#include <algorithm>
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
   *        Shards are named relative to the index's folder (plain relative paths only: no
   *        absolute path, no ".." component, no NUL; at most kMaxShards files) and opened in
   *        name order; every tensor the weight_map names must be in the shard it names
   *        (missing_tensor).
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
  detail::OpenedFile f = detail::open_regular(path);
  const bool listed = open_error == Errc::missing_shard;
  if (f.fd.get() < 0) {
    const std::string what = f.not_regular ? std::string("is ") + f.not_regular + ", not a regular file" : "cannot be opened";
    if (listed) {
      const std::string shard = "shard '" + detail::printable(path, 4096) + "' " + what;
      if (f.not_regular) return detail::fail(open_error, listed_in, first_tensor, shard);
      return detail::fail(open_error, listed_in, first_tensor, shard, hipfile::Error::from_errno(f.error));
    }
    if (f.not_regular) return detail::fail(open_error, path, "", what);
    return detail::fail(open_error, path, "", "cannot open", hipfile::Error::from_errno(f.error));
  }
  auto header = read_header(path, f.fd.get(), f.size);
  if (!header) return detail::fail(header.error());
  const std::size_t index = shards_.size();
  for (auto& t : header->tensors) {
    t.shard = index;
    if (auto it = by_name_.find(t.name); it != by_name_.end())
      return detail::fail(Errc::duplicate_name, path, t.name,
                          "is also in " + detail::printable(shards_[tensors_[it->second].shard].path, 4096));
    by_name_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
  }
  for (const auto& [k, v] : header->metadata) metadata_.emplace(k, v);
  shards_.push_back(Shard{path, f.size, header->data_start, std::move(header->metadata)});
  fds_.push_back(std::move(f.fd));
  return {};
}

namespace detail {

/// The index file's text (bounded like a header), or why it cannot be read.
inline Result<std::string> read_index_text(const std::string& path) {
  OpenedFile f = open_regular(path);
  if (f.not_regular) return fail(Errc::io_error, path, "", std::string("is ") + f.not_regular + ", not a regular file");
  if (f.fd.get() < 0) return fail(Errc::io_error, path, "", "cannot open", hipfile::Error::from_errno(f.error));
  if (f.size > kMaxHeaderBytes)
    return fail(Errc::invalid_index, path, "", "index is " + std::to_string(f.size) + " bytes, above the limit of 100000000");
  std::string text(static_cast<std::size_t>(f.size), '\0');
  if (int e = pread_exact(f.fd.get(), text.data(), text.size(), 0); e != 0)
    return fail(Errc::io_error, path, "", "reading the index", hipfile::Error::from_errno(e));
  return text;
}

/// Why @p name may not name a shard, or nullptr: only plain relative paths inside the index's
/// folder. Checked on the name alone, so symlinks inside the folder (the Hugging Face cache's
/// snapshot files point into ../../blobs) still work.
inline const char* shard_name_problem(std::string_view name) noexcept {
  if (name.find('\0') != std::string_view::npos) return "has a NUL byte";
  if (name.front() == '/') return "is an absolute path: shard names are relative to the index's folder";
  for (std::size_t at = 0; at <= name.size();) {
    const std::size_t slash = std::min(name.find('/', at), name.size());
    if (name.substr(at, slash - at) == "..") return "has a '..' component: shards must be inside the index's folder";
    at = slash + 1;
  }
  return nullptr;
}

/// Index metadata values that are arrays or objects, written back as JSON text from the
/// events (arrays as "[1, 2]", objects as {"k": v} in file order).
class JsonText {
 public:
  void value(const std::string& json_text) {
    separate();
    out_ += json_text;
  }
  void open(bool object) {
    separate();
    out_ += object ? '{' : '[';
    first_.push_back(true);
  }
  void key(const std::string& k) {
    separate();
    out_ += json(k).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
    after_key_ = true;
  }
  void close(bool object) {
    out_ += object ? '}' : ']';
    first_.pop_back();
  }
  [[nodiscard]] bool complete() const noexcept { return first_.empty(); }
  std::string take() { return std::move(out_); }

 private:
  void separate() {
    if (std::exchange(after_key_, false) || first_.empty()) return;
    if (!first_.back()) out_ += ", ";
    first_.back() = false;
  }
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

/**
 * @brief The index's schema as a SAX handler: {"weight_map": {tensor: shard name}, "metadata":
 *        {key: any JSON}}, other keys ignored. Shard names are checked as they arrive.
 */
class IndexSax {
 public:
  IndexSax(const std::string& path, std::map<std::string, std::string>& weight_map,
           std::map<std::string, std::string>& metadata)
      : path_(path), weight_map_(weight_map), metadata_(metadata) {}

  bool value(Scalar&& v) {
    if (skip_ > 0) return true;
    switch (at_) {
      case At::top: return refuse(Errc::invalid_index, "", std::string("index is ") + v.kind() + ", not a JSON object");
      case At::index: return slot_ != Slot::weight_map || no_weight_map();
      case At::weight_map: return shard(std::move(v));
      case At::metadata:
        metadata_.emplace(std::move(key_), v.is_string() ? std::move(v.string) : v.json_text());
        return true;
      case At::metadata_value:
        text_.value(v.json_text());
        return true;
    }
    return true;
  }
  bool open(bool object) {
    if (object) keys_.push();
    if (skip_ > 0) return skip_in();
    switch (at_) {
      case At::top:
        if (!object) return refuse(Errc::invalid_index, "", "index is an array, not a JSON object");
        return go(At::index);
      case At::index:
        if (slot_ == Slot::weight_map && !object) return no_weight_map();
        if (slot_ == Slot::other || !object) return skip_in();  // "metadata" that is no object: ignored
        seen_weight_map_ = seen_weight_map_ || slot_ == Slot::weight_map;
        return go(slot_ == Slot::weight_map ? At::weight_map : At::metadata);
      case At::weight_map:
        return refuse(Errc::invalid_index, name_,
                      std::string("weight_map value is ") + (object ? "an object" : "an array") + ", not a shard file name");
      case At::metadata: at_ = At::metadata_value; [[fallthrough]];
      case At::metadata_value:
        text_.open(object);
        return true;
    }
    return true;
  }
  bool key(std::string& k) {
    if (!keys_.insert(k)) {
      if (skip_ == 0 && at_ == At::weight_map) return refuse(Errc::duplicate_name, k, "appears twice in the index");
      return refuse(Errc::duplicate_name, "", "key '" + printable(k) + "' appears twice in one object of the index");
    }
    if (skip_ > 0) return true;
    if (at_ == At::index) slot_ = k == "weight_map" ? Slot::weight_map : k == "metadata" ? Slot::metadata : Slot::other;
    if (at_ == At::metadata_value) text_.key(k);
    if (at_ == At::weight_map) name_ = std::move(k);
    if (at_ == At::metadata) key_ = std::move(k);
    return true;
  }
  bool close(bool object) {
    if (object) keys_.pop();
    if (skip_ > 0) return skip_out();
    if (at_ == At::metadata_value) {
      text_.close(object);
      if (text_.complete()) {
        metadata_.emplace(std::move(key_), text_.take());
        at_ = At::metadata;
      }
      return true;
    }
    at_ = at_ == At::index ? At::top : At::index;
    return true;
  }

  [[nodiscard]] bool seen_weight_map() const noexcept { return seen_weight_map_; }
  std::optional<Error> error;

 private:
  enum class At { top, index, weight_map, metadata, metadata_value };
  enum class Slot { weight_map, metadata, other };

  // Small steps of the state machine, each a "go on" for the parser.
  bool go(At where) noexcept {
    at_ = where;
    return true;
  }
  bool skip_in() noexcept {
    ++skip_;
    return true;
  }
  bool skip_out() noexcept {
    --skip_;
    return true;
  }
  bool refuse(Errc code, const std::string& tensor, std::string what) {
    error = Error(code, path_, tensor, std::move(what));
    return false;
  }
  bool no_weight_map() { return refuse(Errc::invalid_index, "", "index has no \"weight_map\" object"); }
  bool shard(Scalar&& v) {
    if (!v.is_string() || v.string.empty())
      return refuse(Errc::invalid_index, name_, std::string("weight_map value is ") + v.kind() + ", not a shard file name");
    if (const char* why = shard_name_problem(v.string))
      return refuse(Errc::invalid_index, name_, "shard name '" + printable(v.string) + "' " + why);
    weight_map_.emplace(std::move(name_), std::move(v.string));
    return true;
  }

  const std::string& path_;
  std::map<std::string, std::string>& weight_map_;
  std::map<std::string, std::string>& metadata_;
  At at_ = At::top;
  Slot slot_ = Slot::other;
  std::size_t skip_ = 0;
  bool seen_weight_map_ = false;
  std::string name_, key_;
  JsonText text_;
  KeyStack keys_;
};

/// The index's weight_map (tensor → shard file name) and metadata (key → JSON text).
inline Result<void> parse_index(const std::string& path, std::string_view text, std::map<std::string, std::string>& weight_map,
                                std::map<std::string, std::string>& metadata) {
  if (auto bad = utf8_error(text))
    return fail(Errc::invalid_utf8, path, "", "index is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  if (auto nul = nul_at(text)) return fail(Errc::invalid_json, path, "", "index has a NUL byte at byte " + std::to_string(*nul));
  if (text.rfind("\xEF\xBB\xBF", 0) == 0)
    return fail(Errc::invalid_json, path, "", "index starts with a UTF-8 byte-order mark");
  IndexSax handler(path, weight_map, metadata);
  const SaxOutcome outcome = sax_run(text, handler);
  if (handler.error) return fail(std::move(*handler.error));
  if (outcome.too_deep)
    return fail(Errc::invalid_json, path, "", "index nests JSON more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  if (!outcome.syntax_error.empty()) return fail(Errc::invalid_json, path, "", "index is not valid JSON: " + outcome.syntax_error);
  if (!handler.seen_weight_map()) return fail(Errc::invalid_index, path, "", "index has no \"weight_map\" object");
  return {};
}

}  // namespace detail

inline Result<void> Checkpoint::check_weight_map(const std::map<std::string, std::string>& weight_map,
                                                 const std::map<std::string, std::size_t>& shard_of_file) {
  for (const auto& [name, file] : weight_map) {
    const auto shard = shard_of_file.find(file);  // every file of the weight_map was opened
    if (shard == shard_of_file.end()) continue;
    const std::size_t want = shard->second;
    const TensorInfo* t = find(name);
    if (t == nullptr || t->shard != want)
      return detail::fail(Errc::missing_tensor, shards_[want].path, name,
                          "is listed for this shard in " + detail::printable(index_path_, 4096) + " but is not in its header");
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
  if (first_tensor.size() > kMaxShards)
    return detail::fail(Errc::invalid_index, index_path, "",
                        "index names " + std::to_string(first_tensor.size()) + " shard files, above the limit of " +
                            std::to_string(kMaxShards));
  Checkpoint c;
  c.index_path_ = index_path;
  c.index_meta_ = std::move(meta);
  std::map<std::string, std::size_t> shard_of_file;
  for (const auto& [file, name] : first_tensor) {
    shard_of_file.emplace(file, c.shards_.size());
    const std::string path = folder + file;  // a plain relative name: parse_index checked it
    if (auto r = c.add_shard(path, Errc::missing_shard, index_path, name); !r) return detail::fail(r.error());
  }
  if (auto r = c.check_weight_map(weight_map, shard_of_file); !r) return detail::fail(r.error());
  return c;
}

}  // namespace hipfile::safetensors
