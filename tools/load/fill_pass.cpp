// SPDX-License-Identifier: MIT
#include "fill_pass.hpp"

#include "errors.hpp"
#include "stopwatch.hpp"

#include <hip/hip_runtime_api.h>

#include <fmt/format.h>
#include <utility>

namespace hipfile::tools::load {

namespace sts = hipfile::safetensors;

namespace {

// Each part starts 256-byte aligned, as load()'s tensors do (their alignment in the file aside).
constexpr std::uint64_t kAlign = 256;

std::uint64_t aligned(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

Placed placed(const Part& p, int device, char* data) {
  const sts::TensorInfo& t = *p.tensor;
  return Placed{t.name, std::string(sts::dtype_name(t.dtype)), p.geometry.shape, t.shape, p.slice, device, data,
                p.geometry.bytes(), t.shard, p.geometry};
}

}  // namespace

Arena::Arena(int device, std::uint64_t bytes) : device_(device) {
  check_hip(hipSetDevice(device), fmt::format("hipSetDevice({})", device));
  check_hip(hipMalloc(&data_, bytes ? bytes : 1), fmt::format("hipMalloc of {} bytes on GPU {}", bytes, device));
}

// The memory this held goes with o, which frees it.
Arena& Arena::operator=(Arena&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(device_, o.device_);
  return *this;
}

Arena::~Arena() {
  if (data_ == nullptr) return;
  (void)hipSetDevice(device_);
  (void)hipFree(data_);
  data_ = nullptr;
}

sts::Result<FilledPass> fill_pass(const sts::Checkpoint& c, const std::vector<Part>& parts, int device,
                                  const sts::FillOptions& options) {
  Stopwatch clock;
  std::uint64_t total = 0;
  for (const auto& p : parts) total += aligned(p.geometry.bytes());
  FilledPass pass{Arena(device, total), {}};
  const double allocate = clock.seconds();
  std::vector<sts::Destination> destinations;
  std::uint64_t at = 0;
  for (const auto& p : parts) {
    pass.loaded.tensors.push_back(placed(p, device, pass.arena.data() + at));
    destinations.push_back(sts::Destination{p.tensor->name, pass.arena.data() + at, p.geometry.bytes(), p.slice, {}, {}});
    pass.loaded.bytes += p.geometry.bytes();
    at += aligned(p.geometry.bytes());
  }
  sts::FillOptions fo = options;
  fo.allow_unexpected = true;  // the tensors --only left out
  auto filled = sts::fill(c, destinations, fo);
  if (!filled) return hipfile::unexpected(filled.error());
  pass.loaded.allocations = 1;
  pass.loaded.stats = filled->stats;
  pass.loaded.stats.allocate_seconds = allocate;
  pass.loaded.stats.total_seconds += allocate;
  return pass;
}

}  // namespace hipfile::tools::load
