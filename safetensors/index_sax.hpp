// SPDX-License-Identifier: MIT
/**
 * @file index_sax.hpp
 * @brief Internal: a Hugging Face index's schema as a SAX handler (IndexSax), the shard-name
 *        rule, and the metadata values it writes back as JSON text. Not part of the API.
 */
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <hipfile-safetensors/error.hpp>

#include "json.hpp"
#include "sax_steps.hpp"

namespace hipfile::safetensors::detail {

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
enum class IndexAt { top, index, weight_map, metadata, metadata_value };

class IndexSax : public SaxSteps<IndexAt> {
 public:
  IndexSax(const std::string& path, std::map<std::string, std::string>& weight_map,
           std::map<std::string, std::string>& metadata)
      : SaxSteps(path), weight_map_(weight_map), metadata_(metadata) {}

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

 private:
  using At = IndexAt;
  enum class Slot { weight_map, metadata, other };

  bool no_weight_map() { return refuse(Errc::invalid_index, "", "index has no \"weight_map\" object"); }
  bool shard(Scalar&& v) {
    if (!v.is_string() || v.string.empty())
      return refuse(Errc::invalid_index, name_, std::string("weight_map value is ") + v.kind() + ", not a shard file name");
    if (const char* why = shard_name_problem(v.string))
      return refuse(Errc::invalid_index, name_, "shard name '" + printable(v.string) + "' " + why);
    weight_map_.emplace(std::move(name_), std::move(v.string));
    return true;
  }

  std::map<std::string, std::string>& weight_map_;
  std::map<std::string, std::string>& metadata_;
  Slot slot_ = Slot::other;
  bool seen_weight_map_ = false;
  std::string name_, key_;
  JsonText text_;
  KeyStack keys_;
};

}  // namespace hipfile::safetensors::detail
