// SPDX-License-Identifier: MIT
// The C++ layer from an installed tree: open, write, read back, compare. argv[1]: a scratch file.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include <hipfile++/hipfile.hpp>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  constexpr std::size_t n = 256 * 1024;
  std::vector<std::byte> in(n), out(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::byte>(i * 13 + 1);
  auto buf = hipfile::DeviceBuffer::allocate(n);
  auto file = hipfile::File::open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (!buf || !file) return 1;
  if (hipMemcpy(buf->data(), in.data(), n, hipMemcpyHostToDevice) != hipSuccess) return 1;
  auto w = file->write(buf->bytes(), 0);
  if (!w || *w != n) return 1;
  if (hipMemset(buf->data(), 0, n) != hipSuccess) return 1;
  auto r = file->read(buf->bytes(), 0);
  if (!r || *r != n) return 1;
  if (hipMemcpy(out.data(), buf->data(), n, hipMemcpyDeviceToHost) != hipSuccess) return 1;
  ::unlink(argv[1]);
  if (in != out) return 1;
  std::printf("consumer_cxx: hipfile++ round trip OK\n");
  return 0;
}
