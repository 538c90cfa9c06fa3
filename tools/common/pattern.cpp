// SPDX-License-Identifier: MIT
#include "pattern.hpp"

#include <cstring>

namespace hipfile::tools {
namespace {

// splitmix64: cheap, and consecutive words differ in every byte, so shifted data never matches.
std::uint64_t word_at(std::uint64_t index) {
  std::uint64_t z = index + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Calls fn(word_bytes, first_byte_in_word, count, position_in_range) for each word overlapping
// the range; the head and tail words may be partial.
template <class Fn>
void for_each_word(std::uint64_t file_offset, std::size_t length, Fn&& fn) {
  std::size_t pos = 0;
  while (pos < length) {
    std::uint64_t off = file_offset + pos;
    std::uint64_t w = word_at(off / 8);
    unsigned first = static_cast<unsigned>(off % 8);
    std::size_t count = 8 - first;
    if (count > length - pos) count = length - pos;
    if (!fn(reinterpret_cast<const unsigned char*>(&w) + first, count, pos)) return;
    pos += count;
  }
}

}  // namespace

void fill_pattern(void* dst, std::uint64_t file_offset, std::size_t length) {
  auto* out = static_cast<unsigned char*>(dst);
  for_each_word(file_offset, length, [&](const unsigned char* bytes, std::size_t n, std::size_t pos) {
    std::memcpy(out + pos, bytes, n);
    return true;
  });
}

std::optional<std::uint64_t> check_pattern(const void* src, std::uint64_t file_offset, std::size_t length) {
  const auto* in = static_cast<const unsigned char*>(src);
  std::optional<std::uint64_t> bad;
  for_each_word(file_offset, length, [&](const unsigned char* bytes, std::size_t n, std::size_t pos) {
    if (std::memcmp(in + pos, bytes, n) == 0) return true;
    for (std::size_t i = 0; i < n; ++i)
      if (in[pos + i] != bytes[i]) {
        bad = file_offset + pos + i;
        break;
      }
    return false;
  });
  return bad;
}

}  // namespace hipfile::tools
