// SPDX-License-Identifier: MIT
// The ceiling a load is compared with: pinned host-to-device hipMemcpy, measured in this run.
#pragma once

#include <vector>

namespace hipfile::tools::load {

/// GB/s of hipMemcpy from hipHostMalloc memory to each GPU of @p devices (64 MiB blocks,
/// 512 MiB per GPU after one untimed block), summed over the GPUs. Throws Failure.
double pinned_h2d_gbps(const std::vector<int>& devices);

}  // namespace hipfile::tools::load
