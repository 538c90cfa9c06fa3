// SPDX-License-Identifier: MIT
// json-check FILE KEY...: exits 0 when FILE is well-formed JSON and every dotted KEY path
// (e.g. results.hipfile.gbps_best) names a member, an array's elements being members 0, 1, ...
// (results.hipfile.per_device.1.bytes_per_pass); the tools' tests use it instead of python.
// A KEY written !KEY must be absent, KEY=TEXT must name a string, number or literal whose text
// (a string without its quotes) is TEXT, and @KEY prints that text on a line of its own.
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
  std::string scalar;                                      // strings, numbers, literals
  bool is_scalar = false;
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
    if (c == '[') {  // an array's elements are members named 0, 1, ...
      ++i_;
      if (eat(']')) return true;
      std::size_t index = 0;
      do {
        auto child = std::make_unique<Value>();
        if (!value(child.get())) return false;
        v->members[std::to_string(index++)] = std::move(child);
      } while (eat(','));
      return eat(']');
    }
    v->is_scalar = true;
    if (c == '"') return string(&v->scalar);
    std::size_t start = i_;
    if (!(literal("true") || literal("false") || literal("null") || number())) return false;
    v->scalar = s_.substr(start, i_ - start);
    return true;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: json-check FILE [KEY.PATH | !KEY.PATH | KEY.PATH=TEXT | @KEY.PATH]...\n");
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
    std::string arg = argv[a];
    const bool absent = !arg.empty() && arg[0] == '!';
    const bool print = !arg.empty() && arg[0] == '@';
    if (absent || print) arg.erase(0, 1);
    std::string want;
    const std::size_t eq = arg.find('=');
    const bool compare = !absent && !print && eq != std::string::npos;
    if (compare) want = arg.substr(eq + 1), arg.erase(eq);
    const Value* v = &root;
    std::stringstream path(arg);
    std::string part;
    while (v != nullptr && std::getline(path, part, '.')) {
      auto it = v->members.find(part);
      v = it == v->members.end() ? nullptr : it->second.get();
    }
    if (absent && v != nullptr) {
      std::fprintf(stderr, "json-check: %s has %s, which should be absent\n", argv[1], arg.c_str());
      ++missing;
    } else if (!absent && v == nullptr) {
      std::fprintf(stderr, "json-check: %s has no %s\n", argv[1], arg.c_str());
      ++missing;
    } else if (compare && (!v->is_scalar || v->scalar != want)) {
      std::fprintf(stderr, "json-check: %s: %s is %s, expected %s\n", argv[1], arg.c_str(),
                   v->is_scalar ? v->scalar.c_str() : "not a scalar", want.c_str());
      ++missing;
    } else if (print && !v->is_scalar) {
      std::fprintf(stderr, "json-check: %s: %s is not a scalar\n", argv[1], arg.c_str());
      ++missing;
    } else if (print) {
      std::printf("%s\n", v->scalar.c_str());
    }
  }
  return missing == 0 ? 0 : 1;
}
