// SPDX-License-Identifier: MIT
// Many reads in flight from one thread: a file is read into GPU memory in chunks, every chunk
// a File::read_async future, then checked against a plain read of the same bytes.
// Usage: parallel_read FILE [CHUNK_BYTES]
#include <hipfile++/hipfile.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int fail(const hipfile::Error& e) {
  std::fprintf(stderr, "parallel_read: %s\n", e.message().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [CHUNK_BYTES]\n", argv[0]);
    return 2;
  }
  const std::size_t chunk = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : 4u << 20;
  auto file = hipfile::File::open(argv[1], O_RDONLY);
  if (!file) return fail(file.error());
  auto size = file->size();
  if (!size) return fail(size.error());
  auto gpu = hipfile::DeviceBuffer::allocate(*size);
  if (!gpu) return fail(gpu.error());

  // Start every read, then collect them: they run together on the library's executor.
  std::vector<hipfile::Pending<>> reads;
  for (std::size_t off = 0; off < *size; off += chunk) {
    auto part = gpu->bytes().subspan(off, std::min(chunk, *size - off));
    reads.push_back(file->read_async(part, static_cast<hipfile::Offset>(off)));
  }
  std::size_t total = 0;
  for (auto& r : reads) {
    auto n = r.get();
    if (!n) return fail(n.error());
    total += *n;
  }

  // Check: the GPU bytes equal a synchronous read of the whole file into host memory.
  std::vector<std::byte> host(*size), back(*size);
  if (auto r = file->read_exact(std::span(host), 0); !r) return fail(r.error());
  if (hipMemcpy(back.data(), gpu->data(), back.size(), hipMemcpyDeviceToHost) != hipSuccess) return 1;
  if (total != *size || std::memcmp(host.data(), back.data(), host.size()) != 0) {
    std::fprintf(stderr, "parallel_read: the GPU copy differs from the file\n");
    return 1;
  }
  std::printf("read %zu bytes of %s in %zu reads in flight, identical\n", total, argv[1], reads.size());
  return 0;
}
