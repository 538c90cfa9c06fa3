// SPDX-License-Identifier: MIT
/**
 * @file detail/hip_names.hpp
 * @brief Internal: names of HIP runtime error codes without calling the HIP runtime.
 *
 * hipfile::Error::message() must work in programs that link only libhipfile (the HIP runtime is
 * a dependency of the library, not necessarily of the program), so the names of the common
 * `hipError_t` values are spelled here from their fixed numeric values. Not part of the API.
 */
#pragma once

#include <hip/hip_runtime_api.h>

namespace hipfile::detail {

/// HIP's own spelling of @p e ("hipErrorInvalidValue"), or nullptr for a value not listed.
constexpr const char* hip_error_name(hipError_t e) noexcept {
  switch (static_cast<int>(e)) {
    case 0: return "hipSuccess";
    case 1: return "hipErrorInvalidValue";
    case 2: return "hipErrorOutOfMemory";
    case 3: return "hipErrorNotInitialized";
    case 4: return "hipErrorDeinitialized";
    case 9: return "hipErrorInvalidConfiguration";
    case 12: return "hipErrorInvalidPitchValue";
    case 13: return "hipErrorInvalidSymbol";
    case 17: return "hipErrorInvalidDevicePointer";
    case 21: return "hipErrorInvalidMemcpyDirection";
    case 35: return "hipErrorInsufficientDriver";
    case 100: return "hipErrorNoDevice";
    case 101: return "hipErrorInvalidDevice";
    case 201: return "hipErrorInvalidContext";
    case 400: return "hipErrorInvalidHandle";
    case 401: return "hipErrorIllegalState";
    case 500: return "hipErrorNotFound";
    case 600: return "hipErrorNotReady";
    case 700: return "hipErrorIllegalAddress";
    case 704: return "hipErrorPeerAccessAlreadyEnabled";
    case 705: return "hipErrorPeerAccessNotEnabled";
    case 712: return "hipErrorHostMemoryAlreadyRegistered";
    case 713: return "hipErrorHostMemoryNotRegistered";
    case 719: return "hipErrorLaunchFailure";
    case 801: return "hipErrorNotSupported";
    case 900: return "hipErrorStreamCaptureUnsupported";
    case 999: return "hipErrorUnknown";
    default: return nullptr;
  }
}

}  // namespace hipfile::detail
