// SPDX-License-Identifier: MIT
// Command-line values shared by the tools: byte sizes with k/M/G suffixes, device lists, and
// the human rendering of sizes and rates, so every tool reads and prints them the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct option;

namespace hipfile::tools {

/// A usage error: "TOOL: message" and "Try 'TOOL --help'." on stderr, nothing on stdout, exit 2.
[[noreturn]] void usage_error(std::string_view tool, std::string_view message);
/// One line naming the option getopt_long just refused, for a parser run with opterr = 0 and an
/// optstring that starts with ':' (so a missing value comes back as ':' and anything else as
/// '?'): "unknown option '--bogus'", "option '--size' needs a value",
/// "option '--verify' takes no value".
std::string option_problem(int code, int argc, char** argv, const option* longs);

/// "4096", "64k", "16M", "8G", "1T" (binary multiples; an optional trailing "i"/"iB"/"B").
std::optional<std::uint64_t> parse_size(std::string_view text);
/// A non-negative decimal integer that fits in an int.
std::optional<int> parse_count(std::string_view text);
/// "0,1,3" → {0,1,3}; empty on malformed input.
std::optional<std::vector<int>> parse_int_list(std::string_view text);

/// 8589934592 → "8 GiB", 3145735 → "3.0 MiB".
std::string format_size(std::uint64_t bytes);
/// Bytes per second in GB/s (1e9 bytes/s), as the figures of record use.
double gbps(std::uint64_t bytes, double seconds);

}  // namespace hipfile::tools
