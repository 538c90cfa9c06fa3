// SPDX-License-Identifier: MIT
// libFuzzer target for the safetensors header parser. The first input byte picks the route,
// the rest is split at its first NUL into header text and data section (st_fuzz.hpp):
//   even: parse_header(text, size of the data);
//   1 mod 4: read_header of a file framed from them (the length prefix always right);
//   3 mod 4: read_header of the rest verbatim as the whole file (the length prefix fuzzed too).
// Files live in a memfd, so nothing touches a disk. A parsed header must tile its data section
// (and, from a file, place every tensor inside it); a refusal must carry a bounded message.
#include <sys/mman.h>

#include "st_fuzz.hpp"

namespace {

namespace st = fuzz::st;

constexpr const char* kName = "fuzz.safetensors";

void check_parsed(const st::Header& h, std::uint64_t data_size) {
  fuzz::check_tiling(h.tensors, data_size);
}

void parse_text(std::string_view rest, std::size_t input_size) {
  const auto parts = fuzz::split_at_nul(rest);
  auto h = st::parse_header(kName, parts.text, parts.data.size());
  if (h) check_parsed(*h, parts.data.size());
  else fuzz::check_error(h.error(), input_size);
}

/// One memfd for the process, its contents replaced by each input.
int memfd() {
  static const int fd = ::memfd_create("header-fuzz", MFD_CLOEXEC);
  if (fd < 0) fuzz::broken("memfd_create");
  return fd;
}

void read_file(std::string_view file, std::size_t input_size) {
  const int fd = memfd();
  fuzz::require(::ftruncate(fd, 0) == 0, "ftruncate");
  fuzz::require(st::detail::pwrite_all(fd, file.data(), file.size(), 0) == 0, "pwrite");
  auto h = st::read_header(kName, fd, file.size());
  if (!h) return fuzz::check_error(h.error(), input_size);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
  fuzz::require(h->data_start == 8 + n, "data_start is not 8 + the header length");
  check_parsed(*h, file.size() - h->data_start);
  for (const auto& t : h->tensors)
    fuzz::require(t.file_offset == h->data_start + t.begin, "tensor '" + t.name + "' has a wrong file_offset");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 1: read_file(fuzz::framed_file(fuzz::split_at_nul(rest)), size); break;
    case 3: read_file(rest, size); break;
    default: parse_text(rest, size); break;
  }
  return 0;
}
