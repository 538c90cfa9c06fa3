// SPDX-License-Identifier: MIT
// Checkpoint: opening one file, several shards or an index, and the lookups over its tensors.
#include <hipfile-safetensors/checkpoint.hpp>

#include <algorithm>
#include <utility>

#include "fail.hpp"
#include "fd.hpp"
#include "index_sax.hpp"
#include "json.hpp"

namespace hipfile::safetensors {

namespace detail {
namespace {

/// The index file's text (bounded like a header), or why it cannot be read.
Result<std::string> read_index_text(const std::string& path) {
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

/// The index's weight_map (tensor → shard file name) and metadata (key → JSON text).
Result<void> parse_index(const std::string& path, std::string_view text, std::map<std::string, std::string>& weight_map,
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

}  // namespace
}  // namespace detail

Checkpoint::Checkpoint(Checkpoint&& other) noexcept
    : shards_(std::move(other.shards_)),
      fds_(std::exchange(other.fds_, {})),
      tensors_(std::move(other.tensors_)),
      by_name_(std::move(other.by_name_)),
      metadata_(std::move(other.metadata_)),
      index_meta_(std::move(other.index_meta_)),
      index_path_(std::move(other.index_path_)) {}

Checkpoint& Checkpoint::operator=(Checkpoint&& other) noexcept {
  if (this == &other) return *this;
  close_shards();
  shards_ = std::move(other.shards_);
  fds_ = std::exchange(other.fds_, {});
  tensors_ = std::move(other.tensors_);
  by_name_ = std::move(other.by_name_);
  metadata_ = std::move(other.metadata_);
  index_meta_ = std::move(other.index_meta_);
  index_path_ = std::move(other.index_path_);
  return *this;
}

Checkpoint::~Checkpoint() { close_shards(); }

void Checkpoint::close_shards() noexcept {
  for (int fd : std::exchange(fds_, {})) hipfile::detail::close_quietly(fd);
}

Result<Checkpoint> Checkpoint::open(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) return open_index(path);
  return open_shards(std::span<const std::string>(&path, 1));
}

Result<Checkpoint> Checkpoint::open(std::span<const std::string> paths) {
  if (paths.size() == 1) return open(paths[0]);
  return open_shards(paths);
}

Result<Checkpoint> Checkpoint::open_shards(std::span<const std::string> paths) {
  if (paths.empty()) return detail::fail(Errc::invalid_argument, "", "", "no checkpoint file given");
  Checkpoint c;
  for (const auto& p : paths)
    if (auto r = c.add_shard(p); !r) return detail::fail(r.error());
  return c;
}

const TensorInfo* Checkpoint::find(std::string_view name) const noexcept {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &tensors_[it->second];
}

std::uint64_t Checkpoint::bytes() const noexcept {
  std::uint64_t n = 0;
  for (const auto& t : tensors_) n += t.bytes();
  return n;
}

// Opens one shard and appends its tensors. For an index's shard, an open failure is
// missing_shard, reported against the index file and the first tensor that names the shard.
Result<void> Checkpoint::add_shard(const std::string& path, Errc open_error, const std::string& listed_in,
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
  fds_.push_back(f.fd.release());
  return {};
}

Result<void> Checkpoint::check_weight_map(const std::map<std::string, std::string>& weight_map,
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

Result<Checkpoint> Checkpoint::open_index(const std::string& index_path) {
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
