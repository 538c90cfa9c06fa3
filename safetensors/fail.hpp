// SPDX-License-Identifier: MIT
/**
 * @file fail.hpp
 * @brief Internal: the one place errors are made into the unexpected value of a Result (one
 *        line to change for a shim). Not part of the API.
 */
#pragma once

#include <hipfile-safetensors/error.hpp>

#include <string>
#include <utility>

namespace hipfile::safetensors::detail {

[[nodiscard]] inline hipfile::unexpected<Error> fail(Errc code, std::string file, std::string tensor,
                                                 std::string what) {
  return hipfile::unexpected(Error(code, std::move(file), std::move(tensor), std::move(what)));
}
[[nodiscard]] inline hipfile::unexpected<Error> fail(Errc code, std::string file, std::string tensor,
                                                 std::string what, hipfile::Error cause) {
  return hipfile::unexpected(Error(code, std::move(file), std::move(tensor), std::move(what), cause));
}
[[nodiscard]] inline hipfile::unexpected<Error> fail(Error e) { return hipfile::unexpected(std::move(e)); }

}  // namespace hipfile::safetensors::detail
