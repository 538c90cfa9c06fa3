// SPDX-License-Identifier: MIT
// The files the library itself writes (the log, the statistics report), opened so that a path
// from the environment or a caller cannot turn the write into something else: no symbolic link
// is followed in any component of the path, a FIFO or a device is never written (and opening one
// never blocks: O_NONBLOCK, then fstat), and an existing file is replaced (truncated and made
// 0600) only when it is a regular file owned by the calling user. A file the library creates is
// 0600.
#pragma once

namespace hipfile::sys {

enum class OutputMode {
  Append,   // the log: lines are appended; an existing file keeps its contents and mode
  Replace,  // the statistics report: the file's contents are replaced, mode 0600
};

/// Opens `path` for writing as above. Returns the descriptor (O_CLOEXEC, blocking), or -errno:
/// ELOOP for a symbolic link anywhere in the path, EINVAL for a file that is not regular,
/// EPERM for Replace of an existing file owned by another user, or the open's own error.
int open_output_file(const char* path, OutputMode mode) noexcept;

/// What an errno from open_output_file means, for the log line that reports it.
const char* output_file_error(int err) noexcept;

}  // namespace hipfile::sys
