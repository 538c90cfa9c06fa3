// SPDX-License-Identifier: MIT
// UTF-8 checks and the escaping that makes names from files safe to print.
#include "text.hpp"

#include <cstdio>

namespace hipfile::safetensors::detail {

std::size_t utf8_sequence(const unsigned char* p, std::size_t n, std::size_t i) noexcept {
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

namespace {

// The code points a terminal acts on rather than shows: C1 controls and the bidirectional
// overrides and isolates.
bool is_format_control(char32_t cp) noexcept {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view s, std::size_t limit) {
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

std::optional<std::size_t> utf8_error(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < s.size();) {
    if (p[i] < 0x80) {  // the common case, without the call
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence(p, s.size(), i);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

}  // namespace hipfile::safetensors::detail
