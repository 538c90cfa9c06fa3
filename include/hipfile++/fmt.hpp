// SPDX-License-Identifier: MIT
/**
 * @file fmt.hpp
 * @brief Opt-in fmt support: `fmt::format("{}", error)` prints Error::message().
 *
 * Separate from error.hpp so that hipfile++ does not make fmt a dependency of every user.
 * fmt 9 has no format_as for class types, hence a formatter specialisation. The format spec
 * is that of a string ("{:>40}" pads the message).
 */
#pragma once

#include <fmt/format.h>

#include <string_view>

#include "error.hpp"

template <>
struct fmt::formatter<hipfile::Error> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const hipfile::Error& e, FormatContext& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(e.message(), ctx);
  }
};
