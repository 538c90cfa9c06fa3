// SPDX-License-Identifier: MIT
#include "memory.hpp"

#include "errors.hpp"
#include "pattern.hpp"

#include <hip/hip_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <utility>
#include <vector>

namespace hipfile::tools {

std::string_view mem_kind_name(MemKind kind) {
  switch (kind) {
    case MemKind::Device: return "device";
    case MemKind::Pinned: return "pinned";
    case MemKind::Pageable: return "pageable";
  }
  return "?";
}

Memory::Memory(MemKind kind, std::size_t size, int device) : size_(size), kind_(kind), device_(device) {
  // A zero-byte request still gets a real allocation, so data() is a valid base to register.
  std::size_t bytes = size == 0 ? 4096 : size;
  switch (kind) {
    case MemKind::Device:
      check_hip(hipSetDevice(device), fmt::format("hipSetDevice({})", device));
      check_hip(hipMalloc(&ptr_, bytes), fmt::format("hipMalloc({}) on GPU {}", bytes, device));
      break;
    case MemKind::Pinned:
      check_hip(hipSetDevice(device), fmt::format("hipSetDevice({})", device));
      check_hip(hipHostMalloc(&ptr_, bytes, hipHostMallocDefault), fmt::format("hipHostMalloc({})", bytes));
      break;
    case MemKind::Pageable:
      ptr_ = std::aligned_alloc(4096, (bytes + 4095) & ~std::size_t{4095});
      if (ptr_ == nullptr) throw Failure{fmt::format("cannot allocate {} bytes of host memory", bytes)};
      // Touch every page now, so first-touch faults are not charged to the measured pass.
      std::memset(ptr_, 0, bytes);
      break;
  }
}

Memory::Memory(Memory&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)), kind_(other.kind_),
      device_(other.device_) {}

Memory& Memory::operator=(Memory&& other) noexcept {
  if (this != &other) {
    reset();
    ptr_ = std::exchange(other.ptr_, nullptr);
    size_ = std::exchange(other.size_, 0);
    kind_ = other.kind_;
    device_ = other.device_;
  }
  return *this;
}

Memory::~Memory() { reset(); }

void Memory::reset() noexcept {
  if (ptr_ == nullptr) return;
  switch (kind_) {
    case MemKind::Device: (void)hipFree(ptr_); break;
    case MemKind::Pinned: (void)hipHostFree(ptr_); break;
    case MemKind::Pageable: std::free(ptr_); break;
  }
  ptr_ = nullptr;
  size_ = 0;
}

void Memory::upload(std::size_t offset, const void* src, std::size_t n) const {
  char* dst = static_cast<char*>(ptr_) + offset;
  if (kind_ != MemKind::Device) {
    std::memcpy(dst, src, n);
    return;
  }
  check_hip(hipSetDevice(device_), "hipSetDevice");
  check_hip(hipMemcpy(dst, src, n, hipMemcpyHostToDevice), "hipMemcpy host to device");
  // From pageable memory CUDA returns once the source is staged, before the bytes reach the
  // device: I/O on a non-blocking stream queued next could read the old bytes. Wait for them.
  check_hip(hipStreamSynchronize(nullptr), "hipStreamSynchronize(NULL)");
}

void Memory::download(void* dst, std::size_t offset, std::size_t n) const {
  const char* src = static_cast<const char*>(ptr_) + offset;
  if (kind_ != MemKind::Device) {
    std::memcpy(dst, src, n);
    return;
  }
  check_hip(hipSetDevice(device_), "hipSetDevice");
  check_hip(hipMemcpy(dst, src, n, hipMemcpyDeviceToHost), "hipMemcpy device to host");
}

void Memory::fill_with_pattern(std::uint64_t file_offset) const {
  if (kind_ != MemKind::Device) {
    fill_pattern(ptr_, file_offset, size_);
    return;
  }
  constexpr std::size_t kStep = 64u << 20;
  std::vector<unsigned char> host(std::min(size_, kStep));
  for (std::size_t done = 0; done < size_;) {
    std::size_t n = std::min(kStep, size_ - done);
    fill_pattern(host.data(), file_offset + done, n);
    upload(done, host.data(), n);
    done += n;
  }
}

}  // namespace hipfile::tools
