// SPDX-License-Identifier: MIT
#include "errors.hpp"

#include <cstring>
#include <fmt/format.h>

namespace hipfile::tools {

std::string io_error_text(ssize_t r, int saved_errno) {
  if (IS_HIPFILE_ERR(r)) {
    std::string text = HIPFILE_ERRSTR(r);
    return fmt::format("{} (hipFile error {})", text, -r);
  }
  return std::strerror(saved_errno);
}

std::string hip_text(hipError_t error) {
  return fmt::format("{} ({})", hipGetErrorName(error), hipGetErrorString(error));
}

std::string status_text(hipFileError_t status) {
  std::string text = hipFileGetOpErrorString(status.err);
  if (IS_HIP_DRV_ERR(status)) text += ": " + hip_text(HIP_DRV_ERR(status));
  return text;
}

void check_status(hipFileError_t status, const std::string& context) {
  if (status.err != hipFileSuccess) throw Failure{context + ": " + status_text(status)};
}

void check_hip(hipError_t error, const std::string& context) {
  if (error != hipSuccess) throw Failure{context + ": " + hip_text(error)};
}

}  // namespace hipfile::tools
