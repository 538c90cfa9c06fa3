// SPDX-License-Identifier: MIT
/**
 * @file json.hpp
 * @brief Internal: the JSON step of reading a header or index, bounded by construction.
 *        nlohmann-json's SAX parser (iterative: it keeps its nesting on a vector, not the
 *        stack) feeds a schema-aware handler event by event through SaxAdapter, which caps
 *        the nesting depth; no DOM is built and nothing recursive ever sees the input's depth.
 *        Values reach the handler as Scalar, which renders itself for messages (bounded,
 *        escaped) or as exact JSON. No exception on any path. Not part of the API.
 */
#pragma once

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "text.hpp"

namespace hipfile::safetensors::detail {

using json = nlohmann::json;

/// The deepest JSON nesting a header or index may have. A header needs 3 levels (the object,
/// an entry, its shape); the rest is room for unknown entry keys and index metadata values.
inline constexpr std::size_t kMaxJsonDepth = 16;

/// "an array", "a string", ...: for "is X, not an object" messages.
inline const char* kind(json::value_t t) noexcept {
  switch (t) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::null: return "null";
    default: return "a number";
  }
}

/// One JSON value that is not a container, as the parser delivered it.
struct Scalar {
  json::value_t type = json::value_t::null;
  std::int64_t integer = 0;  // number_integer (negative)
  std::uint64_t natural = 0; // number_unsigned
  double real = 0;           // number_float (also integers beyond 64 bits)
  bool boolean = false;
  std::string string;

  [[nodiscard]] const char* kind() const noexcept { return detail::kind(type); }
  [[nodiscard]] bool is_string() const noexcept { return type == json::value_t::string; }
  /// The value as an unsigned 64-bit integer, when it is one.
  [[nodiscard]] std::optional<std::uint64_t> as_u64() const noexcept {
    if (type == json::value_t::number_unsigned) return natural;
    if (type == json::value_t::number_integer && integer >= 0) return static_cast<std::uint64_t>(integer);
    return std::nullopt;
  }
  /// JSON text for a message: a string quoted and passed through printable().
  [[nodiscard]] std::string message_text() const {
    std::string out;
    append_message_text(out);
    return out;
  }
  /// message_text() appended to @p out (integers without a temporary: shapes render often).
  void append_message_text(std::string& out) const {
    char digits[24];
    if (type == json::value_t::number_unsigned || type == json::value_t::number_integer) {
      const auto r = type == json::value_t::number_unsigned ? std::to_chars(digits, digits + sizeof digits, natural)
                                                            : std::to_chars(digits, digits + sizeof digits, integer);
      out.append(digits, r.ptr);
    } else if (is_string()) {
      out += '"';
      out += printable(string);
      out += '"';
    } else {
      out += json_text();
    }
  }
  /// Exact JSON text (strings escaped as JSON; invalid UTF-8 cannot occur, it was checked first).
  [[nodiscard]] std::string json_text() const {
    switch (type) {
      case json::value_t::number_unsigned: return std::to_string(natural);
      case json::value_t::number_integer: return std::to_string(integer);
      case json::value_t::boolean: return boolean ? "true" : "false";
      case json::value_t::null: return "null";
      case json::value_t::string: return json(string).dump(-1, ' ', false, json::error_handler_t::replace);
      default: return json(real).dump();
    }
  }
};

/// "[2, 3]" built one element at a time, cut short with "..." past the message limit.
class ArrayText {
 public:
  void add(const Scalar& element) {
    if (text_.size() <= kMessageNameBytes) {
      if (count_) text_ += ", ";
      element.append_message_text(text_);
    } else if (!cut_) {
      text_ += ", ...";
      cut_ = true;
    }
    ++count_;
  }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  /// The elements so far, unclosed: "[2, " + "[..." names a container where none belongs.
  [[nodiscard]] std::string open_with(const char* element) const {
    return text_ + (count_ ? ", " : "") + element;
  }
  [[nodiscard]] std::string closed() const { return text_ + "]"; }

 private:
  std::string text_ = "[";
  std::size_t count_ = 0;
  bool cut_ = false;
};

/// The keys of one open object, for duplicate checks: a short list while the object is small
/// (an entry has three keys), a hash set once it grows, so every object costs linear time.
class KeySet {
 public:
  /// False when @p k is already in the set.
  bool insert(const std::string& k) {
    if (set_.empty()) {
      for (const auto& s : few_)
        if (s == k) return false;
      if (few_.size() < kFew) {
        few_.push_back(k);
        return true;
      }
      for (auto& s : few_) set_.insert(std::move(s));
      few_.clear();
    }
    return set_.insert(k).second;
  }
  void clear() noexcept {
    few_.clear();
    set_.clear();
  }

 private:
  static constexpr std::size_t kFew = 8;
  std::vector<std::string> few_;
  std::unordered_set<std::string> set_;
};

/// One KeySet per open object; sets are reused as objects close and open (no allocation
/// per tensor entry once the first is done).
class KeyStack {
 public:
  void push() {
    if (depth_ == sets_.size()) sets_.emplace_back();
    else sets_[depth_].clear();
    ++depth_;
  }
  void pop() noexcept { --depth_; }
  bool insert(const std::string& k) { return sets_[depth_ - 1].insert(k); }

 private:
  std::vector<KeySet> sets_;
  std::size_t depth_ = 0;
};

/**
 * @brief Adapts nlohmann's SAX interface to a schema handler with four calls: value(Scalar&&),
 *        open(bool object), key(std::string&), close(bool object); each returns false to stop
 *        (the handler keeps its own error). Nesting past @p max_depth stops the parse too.
 */
template <class Handler>
class SaxAdapter {
 public:
  SaxAdapter(Handler& h, std::size_t max_depth) noexcept : h_(h), max_depth_(max_depth) {}

  bool null() { return h_.value(Scalar{}); }
  bool boolean(bool b) {
    Scalar s;
    s.type = json::value_t::boolean;
    s.boolean = b;
    return h_.value(std::move(s));
  }
  bool number_integer(json::number_integer_t i) {
    Scalar s;
    s.type = json::value_t::number_integer;
    s.integer = i;
    return h_.value(std::move(s));
  }
  bool number_unsigned(json::number_unsigned_t u) {
    Scalar s;
    s.type = json::value_t::number_unsigned;
    s.natural = u;
    return h_.value(std::move(s));
  }
  bool number_float(json::number_float_t f, const std::string&) {
    Scalar s;
    s.type = json::value_t::number_float;
    s.real = f;
    return h_.value(std::move(s));
  }
  bool string(std::string& v) {
    Scalar s;
    s.type = json::value_t::string;
    s.string = std::move(v);  // the lexer clears its buffer before the next token
    return h_.value(std::move(s));
  }
  bool binary(json::binary_t&) { return false; }  // JSON text has none
  bool start_object(std::size_t) { return enter() && h_.open(true); }
  bool key(std::string& k) { return h_.key(k); }
  bool end_object() { return leave() && h_.close(true); }
  bool start_array(std::size_t) { return enter() && h_.open(false); }
  bool end_array() { return leave() && h_.close(false); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    std::string text = ex.what();
    if (auto close = text.find("] "); text.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      text.erase(0, close + 2);
    syntax_error = printable(text, 2 * kMessageNameBytes);  // its "last read" may be a huge token
    return false;
  }

  bool too_deep = false;     ///< stopped at nesting deeper than max_depth
  std::string syntax_error;  ///< nlohmann's text, when the input is not JSON

 private:
  bool enter() noexcept {
    too_deep = ++depth_ > max_depth_;
    return !too_deep;
  }
  bool leave() noexcept {
    --depth_;
    return true;
  }

  Handler& h_;
  std::size_t max_depth_;
  std::size_t depth_ = 0;
};

/// What sax_run() found besides the handler's own verdict.
struct SaxOutcome {
  bool too_deep = false;
  std::string syntax_error;  ///< non-empty when the text is not JSON
};

/// Runs @p handler over @p text (strict: one value, then only whitespace; no comments).
template <class Handler>
SaxOutcome sax_run(std::string_view text, Handler& handler, std::size_t max_depth = kMaxJsonDepth) {
  SaxAdapter<Handler> sax(handler, max_depth);
  json::sax_parse(text.data(), text.data() + text.size(), &sax);
  return {sax.too_deep, std::move(sax.syntax_error)};
}

/// The offset of the first NUL byte of @p text: nlohmann reads NUL as the end of the input,
/// so NUL padding or a NUL followed by anything would pass unseen.
inline std::optional<std::size_t> nul_at(std::string_view text) noexcept {
  const auto at = text.find('\0');
  return at == std::string_view::npos ? std::nullopt : std::optional<std::size_t>(at);
}

}  // namespace hipfile::safetensors::detail
