// SPDX-License-Identifier: MIT
// What the safetensors libFuzzer targets share: how an input becomes header text and a data
// section, a private scratch folder, and the invariants every successful parse must keep (the
// tensors tile their data section, each range is shape × dtype size) and every failure too (a
// known code, a message whose length stays proportional to the input).
#pragma once

#include <hipfile-safetensors/safetensors.hpp>

#include "fd.hpp"  // the loader's private pwrite_all (safetensors/fd.hpp)

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace fuzz {

namespace st = hipfile::safetensors;

/// A broken invariant: printed, then a trap, which libFuzzer reports as a crash with the input.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "invariant broken: %s\n", what.c_str());
  __builtin_trap();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) broken(what);
}

/// Header text and data section. JSON text cannot hold a raw NUL, so the first NUL of an input
/// ends the header and the rest is the data: mutations of the JSON keep the framing intact.
struct Parts {
  std::string_view text;
  std::string_view data;
};

inline Parts split_at_nul(std::string_view in) {
  const auto nul = in.find('\0');
  if (nul == std::string_view::npos) return {in, {}};
  return {in.substr(0, nul), in.substr(nul + 1)};
}

/// A safetensors file: the 8-byte little-endian length of @p text, @p text, then @p data.
inline std::string framed_file(Parts p) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<std::uint64_t>(p.text.size()) >> (8 * i)) & 0xff);
  out.append(p.text);
  out.append(p.data);
  return out;
}

/// A folder of this process's own under $TMPDIR (scripts/fuzz.sh points it at its work folder,
/// which it removes), so that inputs never name or touch anything else.
inline std::string private_dir(const char* tag) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/hipfile-" + tag + "-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) broken("mkdtemp " + templ);
  return templ;
}

/// Replaces @p path's contents with @p bytes.
inline void write_file(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) broken("cannot create " + path);
  require(st::detail::pwrite_all(fd, bytes.data(), bytes.size(), 0) == 0, "cannot write " + path);
  ::close(fd);
}

/// shape × dtype size in bits, saturated at 2^80 (far above any data section a test makes).
inline unsigned __int128 shape_bits(const st::TensorInfo& t) {
  const unsigned __int128 cap = static_cast<unsigned __int128>(1) << 80;
  unsigned __int128 bits = st::dtype_bits(t.dtype);
  for (auto d : t.shape) bits = d == 0 ? 0 : std::min<unsigned __int128>(bits * d, cap);
  return bits;
}

/// The tensors @p t (of one data section of @p data_size bytes) cover it exactly, in whatever
/// order they come: sorted by offset, each starts where the one before ends. Each range holds
/// shape × dtype size bytes, and names are unique.
inline void check_tiling(std::vector<const st::TensorInfo*> t, std::uint64_t data_size) {
  std::sort(t.begin(), t.end(), [](auto* a, auto* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
  std::uint64_t covered = 0;
  for (const auto* x : t) {
    require(x->begin == covered, "tensor '" + x->name + "' does not start where the one before ends");
    require(x->end >= x->begin, "tensor '" + x->name + "' ends before it begins");
    const auto bits = shape_bits(*x);
    require(bits % 8 == 0 && bits / 8 == x->bytes(), "tensor '" + x->name + "' holds other than shape x dtype bytes");
    covered = x->end;
  }
  require(covered == data_size, "the tensors do not cover the data section");
  std::vector<std::string_view> names;
  for (const auto* x : t) names.push_back(x->name);
  std::sort(names.begin(), names.end());
  require(std::adjacent_find(names.begin(), names.end()) == names.end(), "a tensor name appears twice");
}

inline void check_tiling(const std::vector<st::TensorInfo>& tensors, std::uint64_t data_size) {
  std::vector<const st::TensorInfo*> t;
  for (const auto& x : tensors) t.push_back(&x);
  check_tiling(std::move(t), data_size);
}

/// A refusal has one of the codes the library declares, says why, and its message grows at
/// most linearly with the input (no value rendered without bound).
inline void check_error(const st::Error& e, std::size_t input_size) {
  require(static_cast<int>(e.code()) >= 0 && e.code() <= st::Errc::invalid_slice, "error code out of range");
  require(!e.what().empty(), "error " + std::string(st::errc_name(e.code())) + " without a reason");
  const std::size_t bound = 4 * input_size + 4096;
  require(e.message().size() <= bound,
          "message of " + std::to_string(e.message().size()) + " bytes for a " + std::to_string(input_size) + "-byte input");
}

}  // namespace fuzz
