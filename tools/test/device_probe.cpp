// SPDX-License-Identifier: MIT
// Exit 0 when the HIP runtime reports a device, 77 (Meson: SKIP) when it does not.
#include <hip/hip_runtime_api.h>

#include <cstdio>

int main() {
  int n = 0;
  if (hipGetDeviceCount(&n) == hipSuccess && n > 0) return 0;
  std::puts("SKIP: the HIP runtime reports no device");
  return 77;
}
