// SPDX-License-Identifier: MIT
// Text that came from a file or an argument (tensor names, metadata, paths), made safe to print
// on a terminal: a crafted name cannot move the cursor, recolour the screen or hide what follows.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hipfile::tools {

/// @p text with control characters (C0, DEL, C1), bidirectional overrides and line separators
/// written as \xNN (bytes below 0x80) or \uXXXX, and every byte that is not part of valid UTF-8
/// written as \xNN; valid printable UTF-8 passes unchanged.
std::string printable(std::string_view text);

/// The length of the valid UTF-8 sequence at the start of @p text and its code point, or 0 when
/// the first byte does not start one (overlong forms and surrogates are not valid).
std::size_t utf8_sequence(std::string_view text, char32_t& code);

}  // namespace hipfile::tools
