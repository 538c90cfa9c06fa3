// SPDX-License-Identifier: MIT
#include "args.hpp"

#include "printable.hpp"

#include <getopt.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace hipfile::tools {

void usage_error(std::string_view tool, std::string_view message) {
  // The message quotes the arguments, which may hold escape sequences meant for the terminal.
  fmt::print(stderr, "{}: {}\nTry '{} --help'.\n", tool, printable(message), tool);
  std::exit(2);
}

std::string option_problem(int code, int argc, char** argv, const option* longs) {
  // getopt_long has stepped past a long option it refused, so argv[optind - 1] is that option;
  // a refused short option may sit inside a cluster ("-qx"), so it is named by optopt instead.
  std::string_view arg = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : "";
  bool is_long = arg.size() > 2 && arg.substr(0, 2) == "--";
  std::string_view name = is_long ? arg.substr(0, arg.find('=')) : std::string_view{};
  if (is_long && optopt != 0) {
    // A known long option: check that it is the one getopt meant (optopt is its value).
    bool known = false;
    for (const option* o = longs; o->name != nullptr; ++o)
      if (o->val == optopt && name.substr(2) == o->name) known = true;
    if (!known) is_long = false;
  }
  if (code == ':') {
    if (is_long) return fmt::format("option '{}' needs a value", name);
    return fmt::format("option '-{}' needs a value", static_cast<char>(optopt));
  }
  if (is_long && optopt == 0) return fmt::format("unknown option '{}'", name);
  if (is_long) return fmt::format("option '{}' takes no value", name);
  if (optopt > 0 && optopt < 128 && std::isprint(optopt))
    return fmt::format("unknown option '-{}'", static_cast<char>(optopt));
  return fmt::format("unknown option '{}'", arg);
}

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
