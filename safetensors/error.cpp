// SPDX-License-Identifier: MIT
// Error::message(): the one text every failure of the loader and writer is shown as.
#include <hipfile-safetensors/error.hpp>

#include "text.hpp"

namespace hipfile::safetensors {

std::string Error::message() const {
  std::string out = detail::printable(file_, kMessagePathBytes);
  if (!tensor_.empty()) {
    if (!out.empty()) out += ": ";
    out += "tensor '" + detail::printable(tensor_) + "'";
  }
  if (!out.empty()) out += ": ";
  out += what_;
  if (has_cause_) out += ": " + cause_.message();
  return out;
}

}  // namespace hipfile::safetensors
