// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>
#include <hip/hip_runtime_api.h>
#include <hip/hip_cpu.h>
