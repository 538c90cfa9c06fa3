// SPDX-License-Identifier: MIT
/**
 * @file safetensors/detail/json.hpp
 * @brief Internal: the JSON step of reading a header or index with nlohmann-json, made
 *        exact: UTF-8 checked first (so that error names its byte), duplicate keys refused
 *        (nlohmann keeps the last one silently), and no exception on any path (the parser is
 *        called with allow_exceptions = false and values are type-checked before each get).
 *        Not part of the API.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace hipfile::safetensors::detail {

using json = nlohmann::json;

/// The offset of the first byte of @p s that is not well-formed UTF-8 (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF), or nullopt when all of it is.
inline std::optional<std::size_t> utf8_error(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned c = p[i];
    std::size_t len = 1;
    unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
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
      return i;
    }
    if (i + len > n) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::nullopt;
}

/// The outcome of parse(): a document, or why there is none.
struct Parsed {
  json doc;
  std::string error;      // empty on success: nlohmann's text without its "[json.exception...]" tag
  std::string duplicate;  // the first key that appeared twice in one object
  std::size_t duplicate_depth = 0;  // 1: a key of the top-level object
};

/// Captures nlohmann's parse error text (only run after a failed parse, to name the fault).
struct ErrorText {
  std::string text;
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    text = ex.what();
    if (auto close = text.find("] "); text.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      text.erase(0, close + 2);
    return false;
  }
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
};

/// Parses @p text (already UTF-8 checked) without exceptions, noting duplicate keys.
inline Parsed parse(std::string_view text) {
  Parsed out;
  std::vector<std::set<std::string>> open;  // the keys seen in each object being parsed
  json::parser_callback_t note = [&](int depth, json::parse_event_t event, json& value) {
    if (event == json::parse_event_t::object_start) {
      open.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == json::parse_event_t::key && !open.empty() && value.is_string()) {
      if (!open.back().insert(value.get_ref<const std::string&>()).second && out.duplicate.empty()) {
        out.duplicate = value.get_ref<const std::string&>();
        out.duplicate_depth = static_cast<std::size_t>(depth);
      }
    }
    return true;
  };
  out.doc = json::parse(text.begin(), text.end(), note, /*allow_exceptions=*/false);
  if (out.doc.is_discarded()) {
    ErrorText sax;
    json::sax_parse(text.begin(), text.end(), &sax);
    out.error = sax.text.empty() ? "unknown parse error" : sax.text;
  }
  return out;
}

/// "an array", "a string", ...: for "is X, not an object" messages.
inline std::string kind(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

/// A JSON value as an unsigned 64-bit integer, when it is one (negative, fractional and too
/// large numbers are not: nlohmann reads an integer beyond 64 bits as a float).
inline std::optional<std::uint64_t> as_u64(const json& v) noexcept {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return std::nullopt;
}

/// JSON text of @p v for messages, arrays spaced as "[2, 3]" (invalid UTF-8 cannot occur: it
/// was checked before parsing; replace keeps dump() from ever throwing).
inline std::string text_of(const json& v) {
  if (!v.is_array()) return v.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + text_of(v[i]);
  return s + "]";
}

}  // namespace hipfile::safetensors::detail
