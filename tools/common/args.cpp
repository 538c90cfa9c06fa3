// SPDX-License-Identifier: MIT
#include "args.hpp"

#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace hipfile::tools {

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  std::string_view rest(end, text.data() + text.size() - end);
  unsigned shift = 0;
  if (!rest.empty()) {
    switch (std::tolower(static_cast<unsigned char>(rest.front()))) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      case 'b': shift = 0; break;
      default: return std::nullopt;
    }
    rest.remove_prefix(1);
    if (!rest.empty() && (rest.front() == 'i' || rest.front() == 'I')) rest.remove_prefix(1);
    if (!rest.empty() && (rest.front() == 'b' || rest.front() == 'B')) rest.remove_prefix(1);
    if (!rest.empty()) return std::nullopt;
  }
  if (shift != 0 && value > (~std::uint64_t{0} >> shift)) return std::nullopt;
  return value << shift;
}

std::optional<int> parse_count(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::optional<std::vector<int>> parse_int_list(std::string_view text) {
  std::vector<int> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = parse_count(text.substr(0, comma));
    if (!item) return std::nullopt;
    out.push_back(*item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string format_size(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned u = 0;
  std::uint64_t whole = bytes;
  while (u < 4 && whole >= 1024 && whole % 1024 == 0) whole /= 1024, ++u;
  if (whole < 1024 || u == 4) return fmt::format("{} {}", whole, units[u]);
  double v = static_cast<double>(bytes);
  u = 0;
  while (u < 4 && v >= 1024) v /= 1024, ++u;
  return fmt::format("{:.1f} {}", v, units[u]);
}

double gbps(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

}  // namespace hipfile::tools
