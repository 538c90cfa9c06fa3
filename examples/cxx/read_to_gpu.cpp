// SPDX-License-Identifier: MIT
// The seed example in hipfile++: open a file, register it and a GPU buffer, read the file into
// GPU memory. Teardown (deregister buffer, deregister file, free, close) happens in the
// destructors, in that order. Usage: read_to_gpu FILE
#include <hipfile++/hipfile.hpp>

#include <cstdio>

static int fail(const char* what, const hipfile::Error& e) {
  std::fprintf(stderr, "%s: %s\n", what, e.message().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  auto file = hipfile::File::open(argv[1], O_RDONLY);  // O_DIRECT where the file system has it
  if (!file) return fail(argv[1], file.error());
  auto size = file->size();
  if (!size) return fail("fstat", size.error());
  if (*size == 0) {
    std::printf("%s is empty\n", argv[1]);
    return 0;
  }

  auto gpu = hipfile::make_registered_buffer(*size);  // hipMalloc + hipFileBufRegister
  if (!gpu) return fail("GPU buffer", gpu.error());
  auto n = file->read(gpu->registration, gpu->bytes(), 0);
  if (!n) return fail("read", n.error());

  std::printf("read %zu bytes of %s into GPU memory at %p on device %d\n", *n, argv[1],
              gpu->buffer.data(), gpu->buffer.device());
  // Without explicit registration the whole job is one line:
  //   auto buf = hipfile::read_to_device(argv[1]);
  return 0;
}
