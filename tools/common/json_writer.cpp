// SPDX-License-Identifier: MIT
#include "json_writer.hpp"

#include "printable.hpp"

#include <cmath>
#include <fmt/format.h>

namespace hipfile::tools {

void JsonWriter::indent() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    indent();
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) indent();
  out_ += '}';
  if (first_.empty()) out_ += '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) indent();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  value(name);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

namespace {

// One character of a JSON string: the short escapes, \u00XX for the controls (C1 and DEL too, so
// the document is safe to print on a terminal), the UTF-8 bytes of anything else.
void append_json_char(std::string& out, std::string_view bytes, char32_t code) {
  switch (code) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += fmt::format("\\u{:04x}", static_cast<unsigned>(code));
  else out.append(bytes);
}

}  // namespace

JsonWriter& JsonWriter::value(std::string_view text) {
  separate();
  out_ += '"';
  // JSON text is UTF-8: a byte that is not part of valid UTF-8 becomes U+FFFD, so a name read
  // from a file cannot make the document unreadable to a strict parser.
  while (!text.empty()) {
    char32_t code = 0;
    const std::size_t n = utf8_sequence(text, code);
    if (n == 0) out_ += "\\ufffd";
    else append_json_char(out_, text.substr(0, n), code);
    text.remove_prefix(n == 0 ? 1 : n);
  }
  out_ += '"';
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  separate();
  out_ += fmt::format("{:.6g}", number);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  separate();
  out_ += fmt::format("{}", number);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t number) {
  separate();
  out_ += fmt::format("{}", number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

}  // namespace hipfile::tools
