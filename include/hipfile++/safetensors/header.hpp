// SPDX-License-Identifier: MIT
/**
 * @file safetensors/header.hpp
 * @brief One safetensors file's header: read, parsed and validated into TensorInfo rows.
 *
 * The format: an 8-byte little-endian length N, N bytes of UTF-8 JSON (an object whose keys
 * are tensor names, each {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]},
 * plus an optional "__metadata__" object of strings), then the data section, in which every
 * tensor's bytes are [BEGIN, END). The rules checked here are the Python/Rust safetensors
 * package's own: the tensors, sorted by offset, cover the data section exactly, without gaps
 * or overlaps, and each range holds shape × dtype size bytes.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
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

/// shape × dtype size in bytes, or why not (a dimension that is no integer, an overflow).
inline Result<std::uint64_t> byte_size(const std::string& file, const std::string& name, const json& shape,
                                       Dtype dtype, std::vector<std::uint64_t>& dims) {
  std::uint64_t bits = dtype_bits(dtype);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    auto d = as_u64(shape[i]);
    if (!d)
      return fail(Errc::invalid_shape, file, name,
                  "shape " + text_of(shape) + ": dimension " + std::to_string(i) + " is not a non-negative integer");
    if (*d != 0 && bits > UINT64_MAX / *d)
      return fail(Errc::invalid_shape, file, name, "shape " + text_of(shape) + " overflows 64 bits of data");
    bits *= *d;
    dims.push_back(*d);
  }
  if (bits % 8 != 0)
    return fail(Errc::size_mismatch, file, name,
                "shape " + text_of(shape) + " of " + std::string(dtype_name(dtype)) + " is not a whole number of bytes");
  return bits / 8;
}

/// One "name": {...} entry into @p out, or the first thing wrong with it.
inline Result<void> parse_entry(const std::string& file, const std::string& name, const json& v,
                                std::uint64_t data_size, TensorInfo& out) {
  if (!v.is_object()) return fail(Errc::invalid_entry, file, name, "entry is " + kind(v) + ", not an object");
  auto dt = v.find("dtype");
  if (dt == v.end() || !dt->is_string()) return fail(Errc::invalid_entry, file, name, "entry has no \"dtype\" string");
  auto sh = v.find("shape");
  if (sh == v.end() || !sh->is_array()) return fail(Errc::invalid_entry, file, name, "entry has no \"shape\" array");
  auto off = v.find("data_offsets");
  if (off == v.end() || !off->is_array() || off->size() != 2)
    return fail(Errc::invalid_entry, file, name, "entry has no \"data_offsets\" pair");
  auto dtype = parse_dtype(dt->get_ref<const std::string&>());
  if (!dtype) return fail(Errc::unknown_dtype, file, name, "unknown dtype " + text_of(*dt));
  out.name = name;
  out.dtype = *dtype;
  auto size = byte_size(file, name, *sh, *dtype, out.shape);
  if (!size) return fail(size.error());
  auto b = as_u64((*off)[0]), e = as_u64((*off)[1]);
  if (!b || !e)
    return fail(Errc::invalid_entry, file, name, "data_offsets " + text_of(*off) + " are not non-negative integers");
  if (*e < *b) return fail(Errc::offsets_out_of_order, file, name, "data_offsets " + text_of(*off) + " end before they begin");
  if (*e > data_size)
    return fail(Errc::offsets_out_of_range, file, name,
                "data_offsets " + text_of(*off) + " run past the end of the data section (" + std::to_string(data_size) +
                    " bytes)");
  if (*e - *b != *size)
    return fail(Errc::size_mismatch, file, name,
                "shape " + text_of(*sh) + " of " + std::string(dtype_name(*dtype)) + " is " + std::to_string(*size) +
                    " bytes, but data_offsets " + text_of(*off) + " hold " + std::to_string(*e - *b));
  out.begin = *b;
  out.end = *e;
  return {};
}

/// "__metadata__": an object of strings.
inline Result<void> parse_metadata(const std::string& file, const json& v, std::map<std::string, std::string>& out) {
  if (!v.is_object()) return fail(Errc::invalid_metadata, file, "", "__metadata__ is " + kind(v) + ", not an object");
  for (const auto& [key, value] : v.items()) {
    if (!value.is_string())
      return fail(Errc::invalid_metadata, file, "", "__metadata__ value of '" + key + "' is " + kind(value) + ", not a string");
    out.emplace(key, value.get_ref<const std::string&>());
  }
  return {};
}

/// Sorted by offset, the tensors must tile [0, data_size) exactly (empty ones anywhere
/// between, since they occupy nothing).
inline Result<void> check_tiling(const std::string& file, const std::vector<TensorInfo>& t, std::uint64_t data_size) {
  std::uint64_t covered = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i].begin < covered)
      return fail(Errc::offsets_overlap, file, t[i].name,
                  "data_offsets " + range_text(t[i].begin, t[i].end) + " overlap tensor '" + t[i - 1].name + "' " +
                      range_text(t[i - 1].begin, t[i - 1].end));
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

}  // namespace detail

/**
 * @brief Parses and validates the JSON header @p text of @p file, whose data section is
 *        @p data_size bytes long. Tensor rows get begin/end; file_offset and shard are the
 *        caller's (read_header sets file_offset).
 */
[[nodiscard]] inline Result<Header> parse_header(const std::string& file, std::string_view text,
                                                 std::uint64_t data_size) {
  using namespace detail;
  if (auto bad = utf8_error(text))
    return fail(Errc::invalid_utf8, file, "", "header is not valid UTF-8 (byte " + std::to_string(*bad) + " of the header)");
  Parsed parsed = parse(text);
  if (!parsed.error.empty()) return fail(Errc::invalid_json, file, "", "header is not valid JSON: " + parsed.error);
  if (!parsed.doc.is_object())
    return fail(Errc::header_not_object, file, "", "header is " + kind(parsed.doc) + ", not a JSON object");
  if (!parsed.duplicate.empty())
    return fail(Errc::duplicate_name, file, parsed.duplicate_depth == 1 ? parsed.duplicate : "",
                parsed.duplicate_depth == 1 ? "appears twice in the header"
                                            : "key '" + parsed.duplicate + "' appears twice in one object of the header");
  Header h;
  for (const auto& [key, value] : parsed.doc.items()) {
    if (key == "__metadata__") {
      if (auto r = parse_metadata(file, value, h.metadata); !r) return fail(r.error());
      continue;
    }
    TensorInfo t;
    if (auto r = parse_entry(file, key, value, data_size, t); !r) return fail(r.error());
    h.tensors.push_back(std::move(t));
  }
  std::stable_sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
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
