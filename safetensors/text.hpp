// SPDX-License-Identifier: MIT
/**
 * @file text.hpp
 * @brief Internal: UTF-8 validation and printable(), which escapes and bounds the names and
 *        JSON snippets that messages quote (they come from files). Not part of the API.
 */
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hipfile::safetensors::detail {

/// How many bytes of a name or JSON snippet a message shows before cutting it short.
inline constexpr std::size_t kMessageNameBytes = 160;

/// The length of the well-formed UTF-8 sequence starting at @p p[i] (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or 0 when none starts there.
std::size_t utf8_sequence(const unsigned char* p, std::size_t n, std::size_t i) noexcept;

/// The offset of the first byte of @p s that is not well-formed UTF-8, or nullopt when all of it is.
std::optional<std::size_t> utf8_error(std::string_view s) noexcept;

/**
 * @brief @p s made fit for a message: C0 controls, DEL and bytes that are not UTF-8 as \xNN,
 *        C1 controls and bidirectional overrides as \uXXXX (names come from files and must not
 *        drive the terminal that prints them), cut after about @p limit bytes with "..." and
 *        the full length (a name may be most of a 100 MB header).
 */
std::string printable(std::string_view s, std::size_t limit = kMessageNameBytes);

}  // namespace hipfile::safetensors::detail
