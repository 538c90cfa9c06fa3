// SPDX-License-Identifier: MIT
#include "verify.hpp"

#include "errors.hpp"

#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <vector>

namespace hipfile::tools::load {

namespace sts = hipfile::safetensors;

namespace {

constexpr std::size_t kStep = std::size_t{16} << 20;
constexpr unsigned kThreads = 4;

void pread_exact(int fd, unsigned char* dst, std::size_t n, std::uint64_t offset, const std::string& path) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, dst, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw Failure{fmt::format("verify: pread {} at offset {}: {}", path, offset, r == 0 ? "end of file" : std::strerror(errno))};
    dst += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
}

// One thread's buffers: pinned for the device copy, plain for the file.
struct Scratch {
  void* pinned = nullptr;
  std::vector<unsigned char> file = std::vector<unsigned char>(kStep);
  Scratch() { check_hip(hipHostMalloc(&pinned, kStep, hipHostMallocDefault), "hipHostMalloc for --verify"); }
  ~Scratch() { (void)hipHostFree(pinned); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// Fills @p out with the file's bytes [done, done + n) of @p t: byte i of the slice is column
// i % width of row i / width, each row pitch bytes after the one before in the file.
void pread_slice(const sts::Checkpoint& c, const Placed& t, std::uint64_t done, std::size_t n, unsigned char* out) {
  const sts::SliceGeometry& g = t.geometry;
  const std::string& path = c.shards()[t.shard].path;
  for (std::uint64_t at = done; at < done + n;) {
    const std::uint64_t row = at / g.width, column = at % g.width;
    const std::size_t len = static_cast<std::size_t>(std::min(g.width - column, done + n - at));
    pread_exact(c.shard_fd(t.shard), out + (at - done), len, g.file_offset + row * g.pitch + column, path);
    at += len;
  }
}

// The first difference of one tensor, or "".
std::string compare(const sts::Checkpoint& c, const Placed& t, Scratch& s) {
  const std::string& path = c.shards()[t.shard].path;
  const sts::SliceGeometry& g = t.geometry;
  check_hip(hipSetDevice(t.device), "hipSetDevice");
  for (std::size_t done = 0; done < t.bytes; done += kStep) {
    const std::size_t n = std::min<std::size_t>(kStep, t.bytes - done);
    check_hip(hipMemcpy(s.pinned, static_cast<const char*>(t.data) + done, n, hipMemcpyDeviceToHost),
              fmt::format("verify: hipMemcpy of tensor '{}'", t.name));
    pread_slice(c, t, done, n, s.file.data());
    const auto* gpu = static_cast<const unsigned char*>(s.pinned);
    if (std::memcmp(gpu, s.file.data(), n) == 0) continue;
    const std::size_t i = static_cast<std::size_t>(std::mismatch(gpu, gpu + n, s.file.data()).first - gpu);
    const std::uint64_t byte = done + i;
    return fmt::format("tensor '{}' differs at byte {} (file offset {} of {}): GPU has 0x{:02x}, the file 0x{:02x}",
                       t.name, byte, g.file_offset + byte / g.width * g.pitch + byte % g.width, path, gpu[i], s.file[i]);
  }
  return "";
}

}  // namespace

std::string verify(const sts::Checkpoint& checkpoint, const Loaded& loaded) {
  const auto& tensors = loaded.tensors;
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::string first;
  std::size_t first_index = tensors.size();
  std::string failure;
  auto worker = [&] {
    try {
      Scratch s;
      for (std::size_t i; (i = next.fetch_add(1)) < tensors.size();) {
        std::string diff = compare(checkpoint, tensors[i], s);
        std::lock_guard lock(mutex);
        if (!diff.empty() && i < first_index) first = std::move(diff), first_index = i;
      }
    } catch (const Failure& f) {
      std::lock_guard lock(mutex);
      if (failure.empty()) failure = f.what;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < std::min<std::size_t>(kThreads, std::max<std::size_t>(1, tensors.size())); ++k)
    pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!failure.empty()) throw Failure{failure};
  return first;  // the difference in the first tensor (checkpoint order) that has one
}

void corrupt_for_tests(const Loaded& loaded, const char* spec) {
  const std::string s = spec;
  const auto colon = s.rfind(':');
  const Placed* t = nullptr;
  for (const auto& p : loaded.tensors)
    if (colon != std::string::npos && p.name == s.substr(0, colon)) t = &p;
  if (t == nullptr) throw Failure{fmt::format("HIPFILE_LOAD_CORRUPT='{}': no loaded tensor NAME in NAME:BYTE", s)};
  const std::size_t byte = std::strtoull(s.c_str() + colon + 1, nullptr, 10);
  if (byte >= t->bytes) throw Failure{fmt::format("HIPFILE_LOAD_CORRUPT='{}': the tensor has {} bytes", s, t->bytes)};
  unsigned char v = 0;
  char* p = static_cast<char*>(t->data) + byte;
  check_hip(hipMemcpy(&v, p, 1, hipMemcpyDeviceToHost), "hipMemcpy");
  v = static_cast<unsigned char>(v + 1);
  check_hip(hipMemcpy(p, &v, 1, hipMemcpyHostToDevice), "hipMemcpy");
}

}  // namespace hipfile::tools::load
