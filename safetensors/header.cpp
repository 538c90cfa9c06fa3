// SPDX-License-Identifier: MIT
// One safetensors file's header: the byte rules, the JSON through HeaderSax, the tiling of the
// data section, and the 8-byte length read from the file.
#include <hipfile-safetensors/header.hpp>

#include <algorithm>
#include <cstdio>

#include "fail.hpp"
#include "fd.hpp"
#include "header_sax.hpp"
#include "json.hpp"

namespace hipfile::safetensors {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace detail {
namespace {

std::string range_text(std::uint64_t b, std::uint64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + "]";
}

/// "header is an array, not a JSON object" from the first byte after any leading JSON
/// whitespace, when it is not '{' (no BOM: JSON has none, and the format's reader refuses it).
std::string header_start_problem(std::string_view text) {
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
Result<void> check_tiling(const std::string& file, const std::vector<TensorInfo>& t, std::uint64_t data_size) {
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

/// The byte rules checked before JSON: UTF-8, no NUL, a '{' first. JSON's whitespace (space,
/// tab, LF, CR) may come before it: the safetensors reader parses the header with serde_json
/// as a whole and no release refused it (a '{'-first check was reverted before one; 0.8 tests
/// leading whitespace as padding that aligns the data section).
Result<void> check_header_bytes(const std::string& file, std::string_view text) {
  if (auto bad = utf8_error(text))
    return fail(Errc::invalid_utf8, file, "", "header is not valid UTF-8 (byte " + std::to_string(*bad) + " of the header)");
  if (auto nul = nul_at(text))
    return fail(Errc::invalid_json, file, "",
                "header has a NUL byte at byte " + std::to_string(*nul) + " (only whitespace may pad it)");
  if (text.empty()) return fail(Errc::invalid_json, file, "", "header is empty, not a JSON object");
  const std::size_t first = text.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos)
    return fail(Errc::invalid_json, file, "", "header is only whitespace, not a JSON object");
  if (text[first] != '{') return fail(Errc::header_not_object, file, "", header_start_problem(text.substr(first)));
  return {};
}

}  // namespace
}  // namespace detail

Result<Header> parse_header(const std::string& file, std::string_view text,
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

Result<Header> read_header(const std::string& file, int fd, std::uint64_t file_size) {
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
