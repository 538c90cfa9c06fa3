// SPDX-License-Identifier: MIT
// json-check FILE KEY...: exits 0 when FILE is well-formed JSON and every dotted KEY path
// (e.g. results.hipfile.gbps_best) names a member; the tools' tests use it instead of python.
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Value {
  std::map<std::string, std::unique_ptr<Value>> members;  // objects only
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  bool parse(Value& root) {
    if (!value(&root)) return false;
    space();
    return i_ == s_.size();
  }
  std::size_t position() const { return i_; }

 private:
  void space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  bool literal(const char* word) {
    std::string w = word;
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  bool string(std::string* out) {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      if (s_[i_] == '\\') {
        if (++i_ >= s_.size()) return false;
        if (s_[i_] == 'u') {
          for (int k = 0; k < 4; ++k)
            if (++i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return false;
        } else if (std::string("\"\\/bfnrt").find(s_[i_]) == std::string::npos) {
          return false;
        }
      } else if (out) {
        *out += s_[i_];
      }
      ++i_;
    }
    return eat('"');
  }
  bool number() {
    std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || std::string(".eE+-").find(s_[i_]) != std::string::npos))
      ++i_;
    return i_ > start && std::isdigit(static_cast<unsigned char>(s_[i_ - 1]));
  }
  bool value(Value* v) {
    space();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      if (eat('}')) return true;
      do {
        std::string key;
        if (!string(&key) || !eat(':')) return false;
        auto child = std::make_unique<Value>();
        if (!value(child.get())) return false;
        v->members[key] = std::move(child);
      } while (eat(','));
      return eat('}');
    }
    if (c == '[') {
      ++i_;
      if (eat(']')) return true;
      do {
        Value ignored;
        if (!value(&ignored)) return false;
      } while (eat(','));
      return eat(']');
    }
    if (c == '"') return string(nullptr);
    if (literal("true") || literal("false") || literal("null")) return true;
    return number();
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: json-check FILE [KEY.PATH...]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "json-check: cannot read %s\n", argv[1]);
    return 1;
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Value root;
  Parser parser(text);
  if (!parser.parse(root)) {
    std::fprintf(stderr, "json-check: %s is not valid JSON (near byte %zu)\n", argv[1], parser.position());
    return 1;
  }
  int missing = 0;
  for (int a = 2; a < argc; ++a) {
    const Value* v = &root;
    std::stringstream path(argv[a]);
    std::string part;
    while (v != nullptr && std::getline(path, part, '.')) {
      auto it = v->members.find(part);
      v = it == v->members.end() ? nullptr : it->second.get();
    }
    if (v == nullptr) {
      std::fprintf(stderr, "json-check: %s has no %s\n", argv[1], argv[a]);
      ++missing;
    }
  }
  return missing == 0 ? 0 : 1;
}
