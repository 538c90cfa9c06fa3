// SPDX-License-Identifier: MIT
// A streaming JSON writer for the tools' --json output: objects, arrays, strings, numbers,
// booleans, with commas and escaping handled here so the report code only names fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hipfile::tools {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The key of the next value inside an object.
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);  // non-finite numbers become null
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(std::uint64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(unsigned number) { return value(static_cast<std::uint64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  /// key(name).value(v) in one call.
  template <class T>
  JsonWriter& field(std::string_view name, const T& v) {
    return key(name).value(v);
  }

  const std::string& str() const { return out_; }

 private:
  void separate();
  void indent();

  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace hipfile::tools
