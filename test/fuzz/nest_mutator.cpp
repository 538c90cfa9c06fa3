// SPDX-License-Identifier: MIT
// A custom libFuzzer mutator for the JSON-reading targets: now and then, instead of libFuzzer's
// own byte mutations, it deepens the nesting of the input's JSON while keeping it balanced. It
// picks a bracketed span ("[...]" or "{...}") and puts the whole span in place of a bracketed
// span inside it, which doubles the depth along that path (or, with none inside, wraps the span
// in one more "[...]"). Byte mutations almost never add matching brackets on both sides, so
// without this the recursion that deep nesting causes stays out of reach; with it and
// -fsanitize-coverage=stack-depth (a deeper stack counts as new coverage) depth can double at
// each step.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

constexpr std::size_t kNone = SIZE_MAX;

bool opens(std::uint8_t c) { return c == '[' || c == '{'; }

/// The end (one past the matching bracket) of the span opening at @p i, or kNone. Brackets in
/// strings do not count.
std::size_t span_end(const std::uint8_t* d, std::size_t n, std::size_t i) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t j = i; j < n; ++j) {
    const std::uint8_t c = d[j];
    if (in_string) {
      if (c == '\\') ++j;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (opens(c)) {
      ++depth;
    } else if ((c == ']' || c == '}') && --depth == 0) {
      return j + 1;
    }
  }
  return kNone;
}

/// An opening bracket in [from, to) whose span closes by @p to, or kNone: a random one, or
/// (half the time) the most deeply nested one, so that repeated steps keep doubling one path.
std::size_t pick_span(const std::uint8_t* d, std::size_t from, std::size_t to, std::minstd_rand& rng) {
  std::vector<std::size_t> starts;
  std::size_t depth = 0, deepest = 0, deepest_at = kNone;
  for (std::size_t i = from; i < to; ++i) {
    if (opens(d[i])) {
      starts.push_back(i);
      if (++depth > deepest) deepest = depth, deepest_at = i;
    } else if ((d[i] == ']' || d[i] == '}') && depth > 0) {
      --depth;
    }
  }
  if (deepest_at != kNone && rng() % 2 == 0 && span_end(d, to, deepest_at) != kNone) return deepest_at;
  for (int tries = 0; tries < 4 && !starts.empty(); ++tries) {
    const std::size_t s = starts[rng() % starts.size()];
    if (span_end(d, to, s) != kNone) return s;
  }
  return kNone;
}

/// The deepened input written over @p data, its new size, or 0 when none fits @p max_size.
std::size_t deepen(std::uint8_t* data, std::size_t size, std::size_t max_size, std::minstd_rand& rng) {
  const std::size_t a = pick_span(data, 0, size, rng);
  if (a == kNone) return 0;
  const std::size_t b = span_end(data, size, a);
  const std::size_t c = pick_span(data, a + 1, b - 1, rng);
  std::vector<std::uint8_t> out(data, data + size);
  if (c == kNone) {  // wrap: [ span ]
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(b), ']');
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(a), '[');
  } else {  // the span in place of its inner span
    const std::size_t e = span_end(data, b, c);
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(c), out.begin() + static_cast<std::ptrdiff_t>(e));
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(c), data + a, data + b);
  }
  if (out.size() > max_size) return 0;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::minstd_rand rng(seed);
  if (rng() % 4 == 0)
    if (const std::size_t n = deepen(data, size, max_size, rng)) return n;
  return LLVMFuzzerMutate(data, size, max_size);
}
