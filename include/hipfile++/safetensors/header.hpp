// SPDX-License-Identifier: MIT
/**
 * @file safetensors/header.hpp
 * @brief One safetensors file's header: read, parsed and validated into TensorInfo rows.
 *
 * The format: an 8-byte little-endian length N, N bytes of UTF-8 JSON (an object whose keys
 * are tensor names, each {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]},
 * plus an optional "__metadata__" object of strings), then the data section, in which every
 * tensor's bytes are [BEGIN, END). The rules checked here are the Python/Rust safetensors
 * package's own: the header starts with '{' and only whitespace pads it (no BOM, no NUL);
 * the tensors, sorted by offset, cover the data section exactly, without gaps or overlaps,
 * and each range holds shape × dtype size bytes.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detail/fd.hpp"
#include "detail/json.hpp"
#include "dtype.hpp"
#include "error.hpp"

namespace hipfile::safetensors {

/// The format's limit on the header length (the Rust reader's N_LEN_LIMIT).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

/// One tensor of a checkpoint, as its header describes it.
struct TensorInfo {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::size_t shard = 0;         ///< index into Checkpoint::shards()
  std::uint64_t begin = 0;       ///< data_offsets[0]: from the start of the shard's data section
  std::uint64_t end = 0;         ///< data_offsets[1]
  std::uint64_t file_offset = 0; ///< where the bytes start in the shard file (8 + N + begin)

  [[nodiscard]] std::uint64_t bytes() const noexcept { return end - begin; }
  [[nodiscard]] std::uint64_t elements() const noexcept {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

/// "[2, 3]" (and "[]" for a scalar), as messages and tools print shapes.
[[nodiscard]] inline std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// A parsed header: its tensors (sorted by begin) and __metadata__.
struct Header {
  std::uint64_t data_start = 0;  ///< 8 + N
  std::vector<TensorInfo> tensors;
  std::map<std::string, std::string> metadata;
};

namespace detail {

inline std::string range_text(std::uint64_t b, std::uint64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + "]";
}

/// A tensor entry as its keys arrive, in any order; checked once its object closes.
struct EntryDraft {
  std::optional<Scalar> dtype;
  bool shape_is_array = false;
  std::vector<std::uint64_t> dims;    // up to the first dimension that is no integer
  std::optional<std::size_t> bad_dim; // that dimension
  ArrayText shape;
  bool offsets_is_array = false;
  std::size_t offsets_count = 0;
  std::optional<std::uint64_t> offsets[2];
  ArrayText offsets_text;

  void add_dim(const Scalar& v) {
    const auto d = v.as_u64();
    if (!d && !bad_dim) bad_dim = dims.size();
    if (d && !bad_dim) dims.push_back(*d);
    shape.add(v);
  }
  void add_offset(const Scalar& v) {
    if (offsets_count < 2) offsets[offsets_count] = v.as_u64();
    ++offsets_count;
    offsets_text.add(v);
  }
};

/// shape × dtype size in bytes, or why not (a dimension that is no integer, an overflow),
/// checking the dimensions in order as the format's reader does.
inline Result<std::uint64_t> byte_size(const std::string& file, const std::string& name, const EntryDraft& d,
                                       Dtype dtype) {
  std::uint64_t bits = dtype_bits(dtype);
  for (auto dim : d.dims) {
    if (dim != 0 && bits > UINT64_MAX / dim)
      return fail(Errc::invalid_shape, file, name, "shape " + d.shape.closed() + " overflows 64 bits of data");
    bits *= dim;
  }
  if (d.bad_dim)
    return fail(Errc::invalid_shape, file, name,
                "shape " + d.shape.closed() + ": dimension " + std::to_string(*d.bad_dim) +
                    " is not a non-negative integer");
  if (bits % 8 != 0)
    return fail(Errc::size_mismatch, file, name,
                "shape " + d.shape.closed() + " of " + std::string(dtype_name(dtype)) + " is not a whole number of bytes");
  return bits / 8;
}

/// The closed entry @p d of tensor @p name into @p out (taking the name and dimensions), or
/// the first thing wrong with it.
inline Result<void> finish_entry(const std::string& file, std::string& name, EntryDraft& d,
                                 std::uint64_t data_size, TensorInfo& out) {
  if (!d.dtype || !d.dtype->is_string()) return fail(Errc::invalid_entry, file, name, "entry has no \"dtype\" string");
  if (!d.shape_is_array) return fail(Errc::invalid_entry, file, name, "entry has no \"shape\" array");
  if (!d.offsets_is_array || d.offsets_count != 2)
    return fail(Errc::invalid_entry, file, name, "entry has no \"data_offsets\" pair");
  auto dtype = parse_dtype(d.dtype->string);
  if (!dtype) return fail(Errc::unknown_dtype, file, name, "unknown dtype " + d.dtype->message_text());
  auto size = byte_size(file, name, d, *dtype);
  if (!size) return fail(size.error());
  const std::string off = d.offsets_text.closed();
  const auto b = d.offsets[0], e = d.offsets[1];
  if (!b || !e) return fail(Errc::invalid_entry, file, name, "data_offsets " + off + " are not non-negative integers");
  if (*e < *b) return fail(Errc::offsets_out_of_order, file, name, "data_offsets " + off + " end before they begin");
  if (*e > data_size)
    return fail(Errc::offsets_out_of_range, file, name,
                "data_offsets " + off + " run past the end of the data section (" + std::to_string(data_size) + " bytes)");
  if (*e - *b != *size)
    return fail(Errc::size_mismatch, file, name,
                "shape " + d.shape.closed() + " of " + std::string(dtype_name(*dtype)) + " is " + std::to_string(*size) +
                    " bytes, but data_offsets " + off + " hold " + std::to_string(*e - *b));
  out.name = std::move(name);
  out.dtype = *dtype;
  out.shape = std::move(d.dims);
  out.begin = *b;
  out.end = *e;
  return {};
}

/**
 * @brief The header's schema as a SAX handler: builds Header rows as the events arrive and
 *        refuses, at the first event that shows it, a structure the format does not have.
 *        Keys are checked for duplicates by hashing, per open object.
 */
class HeaderSax {
 public:
  HeaderSax(const std::string& file, std::uint64_t data_size, Header& out) : file_(file), data_size_(data_size), out_(out) {}

  bool value(Scalar&& v) {
    if (skip_ > 0) return true;
    switch (at_) {
      case At::top: return refuse(Errc::header_not_object, "", std::string("header is ") + v.kind() + ", not a JSON object");
      case At::header: return not_object(v.kind());
      case At::metadata:
        if (!v.is_string())
          return refuse(Errc::invalid_metadata, "",
                        "__metadata__ value of '" + printable(key_) + "' is " + v.kind() + ", not a string");
        out_.metadata.emplace(std::move(key_), std::move(v.string));
        return true;
      case At::entry: return entry_value(std::move(v));
      case At::shape: draft_.add_dim(v); return true;
      case At::offsets: draft_.add_offset(v); return true;
    }
    return true;
  }

  bool open(bool object) {
    if (object) keys_.push();
    if (skip_ > 0 || (at_ == At::entry && slot_ == Slot::other)) return skip_in();
    switch (at_) {
      case At::top:
        if (!object) return refuse(Errc::header_not_object, "", "header is an array, not a JSON object");
        return go(At::header);
      case At::header:
        if (!object) return not_object("an array");
        at_ = slot_ == Slot::metadata ? At::metadata : At::entry;
        draft_ = EntryDraft{};
        return true;
      case At::metadata:
        return refuse(Errc::invalid_metadata, "", "__metadata__ value of '" + printable(key_) + "' is " +
                                                     kind(object ? json::value_t::object : json::value_t::array) +
                                                     ", not a string");
      case At::entry: return entry_open(object);
      case At::shape:
        return refuse(Errc::invalid_shape, name_,
                      "shape " + draft_.shape.open_with(object ? "{..." : "[...") + ": dimension " +
                          std::to_string(draft_.shape.size()) +
                          " is " + (object ? "an object" : "an array") + ", not a non-negative integer");
      case At::offsets:
        return refuse(Errc::invalid_entry, name_,
                      "data_offsets " + draft_.offsets_text.open_with(object ? "{..." : "[...") +
                          " are not non-negative integers");
    }
    return true;
  }

  bool key(std::string& k) {
    if (!keys_.insert(k)) {
      if (skip_ == 0 && at_ == At::header) return refuse(Errc::duplicate_name, k, "appears twice in the header");
      return refuse(Errc::duplicate_name, "", "key '" + printable(k) + "' appears twice in one object of the header");
    }
    if (skip_ > 0) return true;
    if (at_ == At::header) {
      slot_ = k == "__metadata__" ? Slot::metadata : Slot::entry;
      name_ = std::move(k);
    } else if (at_ == At::entry) {
      slot_ = k == "dtype" ? Slot::dtype : k == "shape" ? Slot::shape : k == "data_offsets" ? Slot::offsets : Slot::other;
    } else {
      key_ = std::move(k);
    }
    return true;
  }

  bool close(bool object) {
    if (object) keys_.pop();
    if (skip_ > 0) return skip_out();
    switch (at_) {
      case At::shape:
      case At::offsets: return go(At::entry);
      case At::metadata: return go(At::header);
      case At::entry: return go(At::header) && finish();
      default: return go(At::top);
    }
  }

  std::optional<Error> error;

 private:
  enum class At { top, header, metadata, entry, shape, offsets };  // the container being read
  enum class Slot { metadata, entry, dtype, shape, offsets, other };  // what the key announced

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
    error = Error(code, file_, tensor, std::move(what));
    return false;
  }
  bool not_object(const char* what_it_is) {
    if (slot_ == Slot::metadata)
      return refuse(Errc::invalid_metadata, "", std::string("__metadata__ is ") + what_it_is + ", not an object");
    return refuse(Errc::invalid_entry, name_, std::string("entry is ") + what_it_is + ", not an object");
  }
  bool entry_value(Scalar&& v) {
    if (slot_ == Slot::dtype) draft_.dtype = std::move(v);
    if (slot_ == Slot::shape) draft_.shape_is_array = false;
    if (slot_ == Slot::offsets) draft_.offsets_is_array = false;
    return true;
  }
  bool entry_open(bool object) {
    if (slot_ == Slot::dtype) return refuse(Errc::invalid_entry, name_, "entry has no \"dtype\" string");
    if (slot_ == Slot::shape) {
      if (object) return refuse(Errc::invalid_entry, name_, "entry has no \"shape\" array");
      draft_.shape_is_array = true;
      return go(At::shape);
    }
    if (object) return refuse(Errc::invalid_entry, name_, "entry has no \"data_offsets\" pair");
    draft_.offsets_is_array = true;
    return go(At::offsets);
  }
  bool finish() {
    TensorInfo t;
    if (auto r = finish_entry(file_, name_, draft_, data_size_, t); !r) {
      error = r.error();
      return false;
    }
    out_.tensors.push_back(std::move(t));
    return true;
  }

  const std::string& file_;
  std::uint64_t data_size_;
  Header& out_;
  At at_ = At::top;
  Slot slot_ = Slot::entry;
  std::size_t skip_ = 0;   // depth inside a value of an unknown entry key
  std::string name_, key_;  // the tensor being read; the metadata key whose value comes next
  EntryDraft draft_;
  KeyStack keys_;  // the keys of each open object
};

/// "header is an array, not a JSON object" from the first byte, when it is not '{' (the
/// format's reader refuses such a header before parsing it: no BOM, no leading whitespace).
inline std::string header_start_problem(std::string_view text) {
  const unsigned char c = static_cast<unsigned char>(text[0]);
  const char* what = c == '[' ? "an array" : c == '"' ? "a string" : c == 't' || c == 'f' ? "a boolean"
                     : c == 'n' ? "null" : c == '-' || (c >= '0' && c <= '9') ? "a number" : nullptr;
  if (what) return std::string("header is ") + what + ", not a JSON object";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", c);
  return std::string("header starts with byte ") + hex + ", not '{'" +
         (text.rfind("\xEF\xBB\xBF", 0) == 0 ? " (a UTF-8 byte-order mark)" : "");
}

/// Sorted by offset, the tensors must tile [0, data_size) exactly (empty ones anywhere
/// between, since they occupy nothing).
inline Result<void> check_tiling(const std::string& file, const std::vector<TensorInfo>& t, std::uint64_t data_size) {
  std::uint64_t covered = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].begin < covered)
      return fail(Errc::offsets_overlap, file, t[i].name,
                  "data_offsets " + range_text(t[i].begin, t[i].end) + " overlap tensor '" + printable(t[i - 1].name) +
                      "' " + range_text(t[i - 1].begin, t[i - 1].end));
    if (t[i].begin > covered)
      return fail(Errc::offsets_gap, file, t[i].name,
                  "data_offsets " + range_text(t[i].begin, t[i].end) + " leave " +
                      std::to_string(t[i].begin - covered) + " bytes before them that no tensor covers");
    covered = t[i].end;
  }
  if (covered != data_size)
    return fail(Errc::offsets_gap, file, t.empty() ? "" : t.back().name,
                "the data section has " + std::to_string(data_size - covered) + " bytes after the last tensor that no tensor covers");
  return {};
}

/// The byte rules checked before JSON: UTF-8, no NUL, a '{' first.
inline Result<void> check_header_bytes(const std::string& file, std::string_view text) {
  if (auto bad = utf8_error(text))
    return fail(Errc::invalid_utf8, file, "", "header is not valid UTF-8 (byte " + std::to_string(*bad) + " of the header)");
  if (auto nul = nul_at(text))
    return fail(Errc::invalid_json, file, "",
                "header has a NUL byte at byte " + std::to_string(*nul) + " (only whitespace may pad it)");
  if (text.empty()) return fail(Errc::invalid_json, file, "", "header is empty, not a JSON object");
  if (text[0] != '{') return fail(Errc::header_not_object, file, "", header_start_problem(text));
  return {};
}

}  // namespace detail

/**
 * @brief Parses and validates the JSON header @p text of @p file, whose data section is
 *        @p data_size bytes long. Tensor rows get begin/end; file_offset and shard are the
 *        caller's (read_header sets file_offset). Time and memory are linear in the header,
 *        whatever it holds.
 */
[[nodiscard]] inline Result<Header> parse_header(const std::string& file, std::string_view text,
                                                 std::uint64_t data_size) {
  using namespace detail;
  if (auto r = check_header_bytes(file, text); !r) return fail(r.error());
  Header h;
  HeaderSax handler(file, data_size, h);
  const SaxOutcome outcome = sax_run(text, handler);
  if (handler.error) return fail(std::move(*handler.error));
  if (outcome.too_deep)
    return fail(Errc::invalid_json, file, "",
                "header nests JSON more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  if (!outcome.syntax_error.empty()) return fail(Errc::invalid_json, file, "", "header is not valid JSON: " + outcome.syntax_error);
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    return a.end != b.end ? a.end < b.end : a.name < b.name;  // names are unique: a total order
  });
  if (auto r = check_tiling(file, h.tensors, data_size); !r) return fail(r.error());
  return h;
}

/**
 * @brief Reads the header of the open safetensors file @p fd (@p file names it in errors;
 *        @p file_size is its size now) with plain pread: the 8-byte length, its limits, then the
 *        JSON. Every TensorInfo gets its file_offset.
 */
[[nodiscard]] inline Result<Header> read_header(const std::string& file, int fd, std::uint64_t file_size) {
  using detail::fail;
  if (file_size < 8)
    return fail(Errc::file_too_short, file, "",
                "file is " + std::to_string(file_size) + " bytes, shorter than the 8-byte header length");
  unsigned char len_bytes[8] = {};
  if (int e = detail::pread_exact(fd, len_bytes, 8, 0); e != 0)
    return fail(Errc::io_error, file, "", "reading the header length", hipfile::Error::from_errno(e));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len_bytes[i];
  if (n > kMaxHeaderBytes)
    return fail(Errc::header_too_large, file, "",
                "header length " + std::to_string(n) + " is above the format's limit of 100000000 bytes");
  if (n > file_size - 8)
    return fail(Errc::header_beyond_file, file, "",
                "header length " + std::to_string(n) + " runs past the end of the file (8 + " + std::to_string(n) +
                    " > " + std::to_string(file_size) + " bytes)");
  std::string text(n, '\0');
  if (int e = detail::pread_exact(fd, text.data(), n, 8); e != 0)
    return fail(Errc::io_error, file, "", "reading the " + std::to_string(n) + "-byte header", hipfile::Error::from_errno(e));
  auto h = parse_header(file, text, file_size - 8 - n);
  if (!h) return h;
  h->data_start = 8 + n;
  for (auto& t : h->tensors) t.file_offset = h->data_start + t.begin;
  return h;
}

}  // namespace hipfile::safetensors
