/* SPDX-License-Identifier: MIT */
/* hip-cuda: host-side HIP runtime; this subset has no kernel language, so it is the API header. */
#ifndef HIP_CUDA_HIP_RUNTIME_H
#define HIP_CUDA_HIP_RUNTIME_H
#include <hip/hip_runtime_api.h>
#endif
