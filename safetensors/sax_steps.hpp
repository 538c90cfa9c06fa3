// SPDX-License-Identifier: MIT
/**
 * @file sax_steps.hpp
 * @brief Internal: what every schema handler (HeaderSax, IndexSax) keeps of its place in the
 *        document, and the small steps of its state machine. Not part of the API.
 */
#pragma once

#include <hipfile-safetensors/error.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace hipfile::safetensors::detail {

/// @tparam At the handler's enum of containers; it starts at `At::top`.
template <class At>
class SaxSteps {
 public:
  std::optional<Error> error;  ///< set by refuse(): the first thing the schema did not allow

 protected:
  explicit SaxSteps(const std::string& file) : file_(file) {}

  // Each step returns the parser's "go on" (true) or "stop" (false).
  bool go(At where) noexcept {
    at_ = where;
    return true;
  }
  bool skip_in() noexcept {
    ++skip_;
    return true;
  }
  bool skip_out() noexcept {
    --skip_;
    return true;
  }
  bool refuse(Errc code, const std::string& tensor, std::string what) {
    error = Error(code, file_, tensor, std::move(what));
    return false;
  }

  const std::string& file_;  // named in every error
  At at_ = At::top;          // the container being read
  std::size_t skip_ = 0;     // depth inside a value the schema ignores
};

}  // namespace hipfile::safetensors::detail
