// SPDX-License-Identifier: MIT
// What a path is when it is not a regular file, so that every tool refuses a FIFO, a device or a
// directory in the same words, before a read of it blocks or runs without end.
#pragma once

#include <sys/types.h>

#include <string>

namespace hipfile::tools {

/// "a directory", "a FIFO", "a character device", "a block device", "a socket", "a special
/// file"; empty for a regular file.
std::string non_regular_kind(mode_t mode);

/// "PATH is a FIFO, not a regular file" when @p fd is not a regular file (PATH printable), or
/// the fstat error; empty for a regular file.
std::string regular_file_problem(int fd, const std::string& path);

/// Opens @p path with @p flags plus O_NONBLOCK (an open of a FIFO without a writer would wait
/// for one), checks that it is a regular file, then clears O_NONBLOCK. Returns the descriptor,
/// or -1 with @p problem set ("cannot open PATH: reason" or regular_file_problem's text) and
/// errno that of the failed open (0 when the file opened but is not a regular file).
int open_regular(const std::string& path, int flags, mode_t mode, std::string& problem);

}  // namespace hipfile::tools
