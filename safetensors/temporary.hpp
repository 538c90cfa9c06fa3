// SPDX-License-Identifier: MIT
/**
 * @file temporary.hpp
 * @brief Internal: how write() creates, syncs and renames its file: an exclusive temporary
 *        under a random name, the old file's permission bits, fsync of the data and of the
 *        folder. Not part of the API.
 */
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include <hipfile++/file.hpp>
#include <hipfile-safetensors/error.hpp>

namespace hipfile::safetensors::detail {

/// Writes a fresh suffix for a temporary's name into @p out: 0, or an errno.
using SuffixSource = int (*)(std::string& out);

/// 16 hex digits from getrandom(2): a name no one can plant a link or file at in advance.
int random_suffix(std::string& out);

/// Names create_temporary() tries: a random name taken by chance once is already unlikely;
/// many in a row are names someone planted, and the write fails rather than loop.
inline constexpr int kTemporaryAttempts = 16;

struct Temporary {
  File file;
  std::string name;
};

/// Creates PATH.tmp.SUFFIX exclusively (O_EXCL, and O_NOFOLLOW: never through a link at the
/// name, which would have the write truncate and fill the link's target); a name that exists
/// is left alone for another.
Result<Temporary> create_temporary(const std::string& path, mode_t mode, SuffixSource next = random_suffix);

/// The permission bits of the regular file at @p path, which write() gives the file that
/// replaces it; none when there is none (the new file then has 0666 less the umask).
std::optional<mode_t> kept_mode(const std::string& path);

/// fsync(2) of the folder holding @p path, so that a rename in it survives a power loss: 0
/// or an errno. A folder whose file system cannot sync it (EINVAL) is taken as synced.
int sync_folder(const std::string& path) noexcept;

/// Makes the complete temporary the file at @p path: its data on the disk (fsync), then the
/// rename, then the folder's entry on the disk. @p renamed tells whether the rename was made.
Result<void> replace_with(const std::string& path, Temporary& tmp, bool& renamed);

}  // namespace hipfile::safetensors::detail
