// SPDX-License-Identifier: MIT
// Helpers shared by every suite: temporary files, deterministic byte patterns, device copies.
#pragma once

#include <hip/hip_runtime_api.h>

#include "catch.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hipfile::test {

/// Directory for test files: $HIPFILE_TEST_DIR, else the build directory's parent file system
/// (a real disk, so O_DIRECT works; /dev/shm would not).
std::string test_dir();

/// A uniquely named file that is removed on destruction. Optionally filled with pattern(size, seed).
class TempFile {
 public:
  explicit TempFile(std::size_t size = 0, std::uint64_t seed = 1);
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const noexcept { return path_; }
  const char* c_str() const noexcept { return path_.c_str(); }

 private:
  std::string path_;
};

/// Deterministic bytes: pattern(n, seed, offset)[i] depends only on (seed, offset + i), so any
/// sub-range of a file written with pattern(size, seed) equals pattern(len, seed, start).
std::vector<std::byte> pattern(std::size_t n, std::uint64_t seed, std::uint64_t offset = 0);

void write_file(const std::string& path, std::span<const std::byte> bytes);
std::vector<std::byte> read_file(const std::string& path);

/// Copies n bytes from device (or any) memory to a new host vector with hipMemcpy.
std::vector<std::byte> to_host(const void* src, std::size_t n);
/// Copies host bytes to device (or any) memory with hipMemcpy.
void to_device(void* dst, std::span<const std::byte> bytes);
/// Fills n bytes of device memory with value (hipMemset on the memory's own device).
void fill_device(void* dst, int value, std::size_t n);

/// hipLaunchHostFunc, or a stream callback where the runtime library lacks it (ROCm 5).
hipError_t launch_host_func(hipStream_t stream, void (*fn)(void*), void* data);

/// True when the HIP runtime reports at least one device.
bool have_device();

/// hipMalloc'ed memory freed on destruction (tests only; the library has its own owners).
class DeviceMem {
 public:
  explicit DeviceMem(std::size_t n, int device = -1);
  ~DeviceMem();
  DeviceMem(const DeviceMem&) = delete;
  DeviceMem& operator=(const DeviceMem&) = delete;
  void* get() const noexcept { return p_; }
  std::byte* bytes() const noexcept { return static_cast<std::byte*>(p_); }
  std::size_t size() const noexcept { return n_; }

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace hipfile::test

#define HIP_CHECK(expr) REQUIRE((expr) == hipSuccess)

// A failed comparison of multi-megabyte byte vectors must not print every byte: Catch2 would
// spend minutes formatting them. Print the size, the first bytes and a hash instead.
namespace Catch {
template <>
struct StringMaker<std::vector<std::byte>> {
  static std::string convert(const std::vector<std::byte>& v);
};
}  // namespace Catch
