// SPDX-License-Identifier: MIT
// A tiny program for the hipfile-stats test: writes then reads 1 MiB of device memory through
// the C API on the file argv[1], optionally writes the report to argv[2] itself, exits with 3.
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile/hipfile.h>
#include <hipfile/hipfile_stats.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
    std::puts("SKIP: the HIP runtime reports no device");
    return 77;
  }
  const size_t n = 1u << 20;
  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  void* dev = nullptr;
  if (fd < 0 || hipMalloc(&dev, n) != hipSuccess || hipMemset(dev, 7, n) != hipSuccess) return 1;
  if (hipFileDriverOpen().err != hipFileSuccess) return 1;
  hipFileDescr_t d{};
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = fd;
  hipFileHandle_t fh = nullptr;
  if (hipFileHandleRegister(&fh, &d).err != hipFileSuccess) return 1;
  if (hipFileWrite(fh, dev, n, 0, 0) != static_cast<ssize_t>(n)) return 1;
  if (hipFileRead(fh, dev, n, 0, 0) != static_cast<ssize_t>(n)) return 1;
  if (argc > 2 && hipFileStatsWrite(argv[2]).err != hipFileSuccess) return 1;
  hipFileHandleDeregister(fh);
  if (hipFileDriverClose().err != hipFileSuccess) return 1;
  (void)hipFree(dev);
  close(fd);
  unlink(argv[1]);
  std::printf("helper done\n");
  return 3;
}
