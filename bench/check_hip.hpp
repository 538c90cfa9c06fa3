// SPDX-License-Identifier: MIT
// The benchmark programs' one error rule: a failed HIP call ends the program with its name.
#pragma once

#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_HIP(x)                                                                   \
  do {                                                                                 \
    hipError_t e_ = (x);                                                               \
    if (e_ != hipSuccess) {                                                            \
      std::fprintf(stderr, "%s: %s\n", #x, hipGetErrorName(e_));                      \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)
