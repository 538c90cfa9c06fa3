// SPDX-License-Identifier: MIT
// Test helpers shared by hip-cpu's unit tests.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)  // Catch2 v3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
#include <hip/hip_cpu.h>
#include <hip/hip_runtime_api.h>

#include <string>

// Failures print the HIP error name instead of a bare number.
namespace Catch {
template <>
struct StringMaker<hipError_t> {
    static std::string convert(hipError_t e) { return std::string(hipGetErrorName(e)) + "(" + std::to_string(int(e)) + ")"; }
};
}  // namespace Catch

#define HIP_OK(expr) REQUIRE((expr) == hipSuccess)
