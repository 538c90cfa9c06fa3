// SPDX-License-Identifier: MIT
/**
 * @file safetensors/error.hpp
 * @brief The errors of the safetensors loader and writer: a code, the file and tensor they
 *        are about, what is wrong, and the hipfile::Error behind an I/O or HIP failure.
 */
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "../error.hpp"

namespace hipfile::safetensors {

/// What went wrong. Codes up to invalid_argument are checkpoint or argument problems found
/// before any device memory is allocated; io_error and device_error carry a cause().
enum class Errc {
  file_too_short,        ///< fewer than the 8 bytes of the header length
  header_too_large,      ///< header length above the format's 100,000,000 bytes
  header_beyond_file,    ///< header length runs past the end of the file
  invalid_utf8,          ///< the header (or an index) is not UTF-8
  invalid_json,          ///< not JSON
  header_not_object,     ///< JSON, but not an object
  invalid_entry,         ///< a tensor entry without a dtype string, shape array or data_offsets pair
  invalid_metadata,      ///< __metadata__ is not an object of strings
  unknown_dtype,         ///< a dtype the format does not have
  invalid_shape,         ///< a dimension that is not a non-negative integer, or an overflowing size
  offsets_out_of_range,  ///< data_offsets past the end of the data section
  offsets_out_of_order,  ///< data_offsets that end before they begin
  offsets_overlap,       ///< two tensors share bytes
  offsets_gap,           ///< bytes of the data section that no tensor covers
  size_mismatch,         ///< shape × dtype size is not the byte range
  duplicate_name,        ///< one tensor name twice (in a header, an index, or two shards)
  invalid_index,         ///< an index that is not {"weight_map": {name: shard}}
  missing_shard,         ///< an index names a shard that cannot be opened
  missing_tensor,        ///< an index names a tensor its shard lacks
  shard_changed,         ///< a shard's size changed between open and load
  no_such_tensor,        ///< a name asked for is not in the checkpoint
  dtype_mismatch,        ///< typed access with a type of another dtype
  invalid_argument,      ///< a bad device, tensor description or option
  io_error,              ///< a system or hipFile call failed (cause())
  device_error,          ///< a HIP runtime call (allocation, copy) failed (cause())
};

/// "invalid_json", ...: the code's name, for bindings and --json output.
[[nodiscard]] constexpr std::string_view errc_name(Errc c) noexcept {
  constexpr std::string_view names[] = {
      "file_too_short", "header_too_large", "header_beyond_file", "invalid_utf8", "invalid_json",
      "header_not_object", "invalid_entry", "invalid_metadata", "unknown_dtype", "invalid_shape",
      "offsets_out_of_range", "offsets_out_of_order", "offsets_overlap", "offsets_gap", "size_mismatch",
      "duplicate_name", "invalid_index", "missing_shard", "missing_tensor", "shard_changed",
      "no_such_tensor", "dtype_mismatch", "invalid_argument", "io_error", "device_error"};
  return names[static_cast<int>(c)];
}

namespace detail {

/// The length of the well-formed UTF-8 sequence starting at @p p[i] (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or 0 when none starts there.
inline std::size_t utf8_sequence(const unsigned char* p, std::size_t n, std::size_t i) noexcept {
  const unsigned c = p[i];
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (p[i + k] < 0x80 || p[i + k] > 0xBF) return 0;
  return len;
}

/// How many bytes of a name or JSON snippet a message shows before cutting it short.
inline constexpr std::size_t kMessageNameBytes = 160;

/// True for the code points a terminal acts on rather than shows: C1 controls and the
/// bidirectional overrides and isolates.
constexpr bool is_format_control(char32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/**
 * @brief @p s made fit for a message: C0 controls, DEL and bytes that are not UTF-8 as \xNN,
 *        C1 controls and bidirectional overrides as \uXXXX (names come from files and must not
 *        drive the terminal that prints them), cut after about @p limit bytes with "..." and
 *        the full length (a name may be most of a 100 MB header).
 */
inline std::string printable(std::string_view s, std::size_t limit = kMessageNameBytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::string out;
  char buf[8];
  for (std::size_t i = 0; i < s.size();) {
    if (out.size() >= limit) return out + "... (" + std::to_string(s.size()) + " bytes)";
    const std::size_t len = utf8_sequence(p, s.size(), i);
    char32_t cp = len == 1 ? p[i] : 0;
    if (len == 2) cp = ((p[i] & 0x1Fu) << 6) | (p[i + 1] & 0x3Fu);
    if (len == 3) cp = ((p[i] & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6) | (p[i + 2] & 0x3Fu);
    if (len == 0 || (len == 1 && (cp < 0x20 || cp == 0x7F))) {
      std::snprintf(buf, sizeof buf, "\\x%02x", p[i]);
      out += buf;
      ++i;
      continue;
    }
    if (is_format_control(cp)) {
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s.data() + i, len);
    }
    i += len;
  }
  return out;
}

}  // namespace detail

/**
 * @brief One failure: message() reads "FILE: tensor 'NAME': WHAT[: CAUSE]", leaving out the
 *        parts that do not apply (no file for a writer argument, no tensor for a header that
 *        is not JSON). The file and tensor are shown through detail::printable (escaped,
 *        bounded); file() and tensor() return them as they are.
 */
class Error {
 public:
  Error() = default;
  Error(Errc code, std::string file, std::string tensor, std::string what) noexcept
      : code_(code), file_(std::move(file)), tensor_(std::move(tensor)), what_(std::move(what)) {}
  /// An I/O or HIP failure with the hipfile::Error behind it.
  Error(Errc code, std::string file, std::string tensor, std::string what, hipfile::Error cause) noexcept
      : Error(code, std::move(file), std::move(tensor), std::move(what)) {
    cause_ = cause;
    has_cause_ = true;
  }

  [[nodiscard]] Errc code() const noexcept { return code_; }
  /// The checkpoint file (shard or index) the error is about; empty when none.
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// The tensor the error is about; empty when the error concerns the whole file.
  [[nodiscard]] const std::string& tensor() const noexcept { return tensor_; }
  /// What is wrong, without file and tensor.
  [[nodiscard]] const std::string& what() const noexcept { return what_; }
  /// The failed call's error (io_error, device_error).
  [[nodiscard]] bool has_cause() const noexcept { return has_cause_; }
  [[nodiscard]] const hipfile::Error& cause() const noexcept { return cause_; }

  [[nodiscard]] std::string message() const {
    std::string out = detail::printable(file_, kMessagePathBytes);
    if (!tensor_.empty()) {
      if (!out.empty()) out += ": ";
      out += "tensor '" + detail::printable(tensor_) + "'";
    }
    if (!out.empty()) out += ": ";
    out += what_;
    if (has_cause_) out += ": " + cause_.message();
    return out;
  }

 private:
  static constexpr std::size_t kMessagePathBytes = 4096;  // PATH_MAX: a path that opened shows whole

  Errc code_ = Errc::invalid_argument;
  std::string file_, tensor_, what_;
  hipfile::Error cause_;
  bool has_cause_ = false;
};

/// The return type of every fallible call of the safetensors layer.
template <class T>
using Result = hipfile::expected<T, Error>;

namespace detail {
/// The one place errors are made into the unexpected value (one line to change for a shim).
[[nodiscard]] inline hipfile::unexpected<Error> fail(Errc code, std::string file, std::string tensor,
                                                 std::string what) {
  return hipfile::unexpected(Error(code, std::move(file), std::move(tensor), std::move(what)));
}
[[nodiscard]] inline hipfile::unexpected<Error> fail(Errc code, std::string file, std::string tensor,
                                                 std::string what, hipfile::Error cause) {
  return hipfile::unexpected(Error(code, std::move(file), std::move(tensor), std::move(what), cause));
}
[[nodiscard]] inline hipfile::unexpected<Error> fail(Error e) { return hipfile::unexpected(std::move(e)); }
}  // namespace detail

}  // namespace hipfile::safetensors
