// SPDX-License-Identifier: MIT
/*
 * hip-cpu has no kernels, so <hip/hip_runtime.h> is the runtime API and nothing more. It exists so
 * that code written for a real HIP (which usually includes this header) builds unchanged.
 */
#ifndef HIPCPU_HIP_RUNTIME_H
#define HIPCPU_HIP_RUNTIME_H

#include <hip/hip_runtime_api.h>

#endif /* HIPCPU_HIP_RUNTIME_H */
