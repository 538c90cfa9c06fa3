// SPDX-License-Identifier: MIT
#include "printable.hpp"

#include <cstdio>

namespace hipfile::tools {

namespace {

// Code points a terminal acts on rather than shows: C0 and C1 controls, DEL, the bidirectional
// embeddings, overrides and isolates (they reorder what follows), and the line separators.
bool acted_on(char32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x2028 || c == 0x2029 || c == 0x200e || c == 0x200f;
}

void append_escape(std::string& out, const char* format, unsigned value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

}  // namespace

std::size_t utf8_sequence(std::string_view text, char32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(0);
  std::size_t n = 0;
  char32_t min = 0;
  if (b0 < 0x80) return code = b0, 1;
  if (b0 >= 0xc2 && b0 <= 0xdf) n = 2, min = 0x80, code = b0 & 0x1fu;
  else if (b0 >= 0xe0 && b0 <= 0xef) n = 3, min = 0x800, code = b0 & 0x0fu;
  else if (b0 >= 0xf0 && b0 <= 0xf4) n = 4, min = 0x10000, code = b0 & 0x07u;
  else return 0;
  if (text.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code = code << 6 | (byte(i) & 0x3fu);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return n;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    char32_t code = 0;
    const std::size_t n = utf8_sequence(text, code);
    if (n == 0) append_escape(out, "\\x%02x", static_cast<unsigned char>(text.front()));
    else if (!acted_on(code)) out.append(text.substr(0, n));
    else if (code < 0x80) append_escape(out, "\\x%02x", static_cast<unsigned>(code));
    else append_escape(out, "\\u%04x", static_cast<unsigned>(code));
    text.remove_prefix(n == 0 ? 1 : n);
  }
  return out;
}

}  // namespace hipfile::tools
