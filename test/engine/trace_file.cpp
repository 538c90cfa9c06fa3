// SPDX-License-Identifier: MIT
#include "trace_file.hpp"

#include <fstream>
#include <sstream>

#include "catch.hpp"

namespace hipfile::test {

namespace {
std::vector<long long> fields(const std::string& line) {
  std::vector<long long> out;
  std::stringstream in(line.substr(line.find(',') + 1));
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoll(item));
  return out;
}
}  // namespace

Trace read_trace(const std::string& path) {
  Trace t;
  std::ifstream in(path);
  REQUIRE(in.good());
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# hipfile trace", 0) == 0) t.header = line;
    if (line.rfind("request,", 0) == 0) t.requests.push_back(fields(line));
    if (line.rfind("copy,", 0) == 0) t.copies.push_back(fields(line));
  }
  return t;
}

}  // namespace hipfile::test
