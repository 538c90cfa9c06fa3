// SPDX-License-Identifier: MIT
// One wording for every failure a tool reports: hipFile op errors, HIP runtime errors, errno.
#pragma once

#include <hipfile/hipfile.h>

#include <string>

namespace hipfile::tools {

/// For a hipFileRead/Write return r < 0 (errno saved right after the call): the op error text
/// when IS_HIPFILE_ERR(r), strerror otherwise, as upstream's aiscp reports it.
std::string io_error_text(ssize_t r, int saved_errno);
/// "Invalid value" or "HIP driver error: hipErrorInvalidValue (invalid argument)".
std::string status_text(hipFileError_t status);
/// "hipErrorOutOfMemory (out of memory)".
std::string hip_text(hipError_t error);
/// Thrown by the tools' helpers; main() prints what() and exits 1.
struct Failure {
  std::string what;
};
/// Throws Failure{context + ": " + status_text(status)} unless status is success.
void check_status(hipFileError_t status, const std::string& context);
/// Throws Failure{context + ": " + hip_text(error)} unless error is hipSuccess.
void check_hip(hipError_t error, const std::string& context);

}  // namespace hipfile::tools
