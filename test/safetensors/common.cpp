// SPDX-License-Identifier: MIT
#include "common.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

#if __has_include(<hip/hip_cpu.h>)
#include <hip/hip_cpu.h>
#define HIPFILE_TEST_HIP_CPU 1
#endif

namespace hipfile::test::st {

TempDir::TempDir() {
  std::string tmpl = test_dir() + "/hipfile-st-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_raw(const std::string& path, const std::string& header, const std::vector<std::byte>& data,
               std::optional<std::uint64_t> length) {
  const std::uint64_t n = length.value_or(header.size());
  std::vector<std::byte> out(8);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::byte>((n >> (8 * i)) & 0xFF);
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  out.insert(out.end(), data.begin(), data.end());
  write_file(path, out);
}

std::uint64_t spec_bytes(const Spec& s) {
  std::uint64_t bits = sts::dtype_bits(s.dtype);
  for (auto d : s.shape) bits *= d;
  return bits / 8;
}

const std::vector<std::byte>& Made::at(const std::string& name) const {
  for (const auto& [n, b] : tensors)
    if (n == name) return b;
  throw std::runtime_error("no tensor " + name);
}

std::string entry(const std::string& name, const std::string& dtype, const std::string& shape, std::uint64_t begin,
                  std::uint64_t end) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" +
         std::to_string(begin) + "," + std::to_string(end) + "]}";
}

Made make_checkpoint(const std::string& path, const std::vector<Spec>& specs, std::uint64_t seed,
                     const std::string& metadata) {
  std::string header = "{";
  if (!metadata.empty()) header += "\"__metadata__\":" + metadata;
  std::uint64_t at = 0;
  for (const auto& s : specs) {
    const std::uint64_t n = spec_bytes(s);
    if (header.size() > 1) header += ",";
    header += entry(s.name, std::string(sts::dtype_name(s.dtype)), sts::shape_text(s.shape), at, at + n);
    at += n;
  }
  header += "}";
  const std::vector<std::byte> data = pattern(at, seed);
  write_raw(path, header, data);
  Made made;
  at = 0;
  for (const auto& s : specs) {
    const std::uint64_t n = spec_bytes(s);
    made.tensors.emplace_back(s.name, std::vector<std::byte>(data.begin() + static_cast<long>(at),
                                                             data.begin() + static_cast<long>(at + n)));
    at += n;
  }
  return made;
}

std::vector<std::byte> host_bytes(const sts::LoadedTensor& t) { return to_host(t.data, t.bytes); }

int live_device_allocations() {
#ifdef HIPFILE_TEST_HIP_CPU
  int n = 0;
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess) return 0;
  for (int d = 0; d < count; ++d) n += hipcpuLiveDeviceAllocations(d);
  return n;
#else
  return 0;
#endif
}

}  // namespace hipfile::test::st
