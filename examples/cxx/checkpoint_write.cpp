// SPDX-License-Identifier: MIT
// A checkpoint: 50 device tensors of 1 byte up to MAX_BYTES written into one file through a
// Batch (all in flight), made durable with File::sync, then read back with read_all and
// compared. The layout: a uint64 count, a table of (offset, size) pairs, then the tensors.
// Usage: checkpoint_write OUT [MAX_BYTES]
#include <hipfile++/hipfile.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int fail(const hipfile::Error& e) {
  std::fprintf(stderr, "checkpoint_write: %s\n", e.message().c_str());
  return 1;
}

struct Entry {  // one row of the table, as stored in the file
  std::uint64_t offset;
  std::uint64_t size;
};

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT [MAX_BYTES]\n", argv[0]);
    return 2;
  }
  const std::size_t max_bytes = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 64u << 20;
  constexpr std::size_t kTensors = 50;

  // Tensors from 1 byte growing geometrically to max_bytes, each filled with its own byte.
  std::vector<hipfile::DeviceBuffer> tensors;
  std::vector<Entry> table(kTensors);
  std::uint64_t offset = sizeof(std::uint64_t) + sizeof(Entry) * kTensors;
  for (std::size_t i = 0; i < kTensors; ++i) {
    const double t = static_cast<double>(i) / (kTensors - 1);
    const auto bytes = static_cast<std::size_t>(1 + (static_cast<double>(max_bytes) - 1) * t * t * t);
    auto buf = hipfile::DeviceBuffer::allocate(bytes);
    if (!buf) return fail(buf.error());
    if (hipMemset(buf->data(), static_cast<int>(i + 1), bytes) != hipSuccess) return 1;
    table[i] = {offset, bytes};
    offset += (bytes + 4095) / 4096 * 4096;  // 4 KiB-aligned tensors suit O_DIRECT
    tensors.push_back(std::move(*buf));
  }

  auto file = hipfile::File::open(argv[1], O_RDWR | O_CREAT | O_TRUNC);
  if (!file) return fail(file.error());
  hipfile::Batch batch;
  const std::uint64_t count = kTensors;
  batch.add_write(*file, std::span(&count, 1), 0);
  batch.add_write(*file, std::span(table), sizeof count);
  for (std::size_t i = 0; i < kTensors; ++i)
    batch.add_write(*file, tensors[i].bytes(), static_cast<hipfile::Offset>(table[i].offset));
  for (auto& r : batch.wait())
    if (!r) return fail(r.error());
  if (auto s = file->sync(); !s) return fail(s.error());

  // Read back: the header first, then every tensor in flight together.
  auto n = file->read_value<std::uint64_t>(0);
  if (!n) return fail(n.error());
  std::vector<Entry> stored(*n);
  if (auto r = file->read_exact(std::span(stored), sizeof count); !r) return fail(r.error());
  std::vector<hipfile::DeviceBuffer> back;
  std::vector<hipfile::ReadRequest> reads;
  for (const Entry& e : stored) {
    auto buf = hipfile::DeviceBuffer::allocate(e.size);
    if (!buf) return fail(buf.error());
    reads.push_back({buf->bytes(), static_cast<hipfile::Offset>(e.offset)});
    back.push_back(std::move(*buf));
  }
  const auto results = hipfile::read_all(*file, reads);
  std::size_t total = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) return fail(results[i].error());
    std::vector<unsigned char> a(stored[i].size), b(stored[i].size);
    if (hipMemcpy(a.data(), tensors[i].data(), a.size(), hipMemcpyDeviceToHost) != hipSuccess ||
        hipMemcpy(b.data(), back[i].data(), b.size(), hipMemcpyDeviceToHost) != hipSuccess)
      return 1;
    if (*results[i] != stored[i].size || a != b) {
      std::fprintf(stderr, "checkpoint_write: tensor %zu differs\n", i);
      return 1;
    }
    total += *results[i];
  }
  std::printf("wrote and read back %zu tensors (%zu bytes) in %s, identical\n", results.size(), total, argv[1]);
  return 0;
}
