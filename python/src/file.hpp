// SPDX-License-Identifier: MIT
// hipfile.File: a hipfile::File opened from a path and mode, with the I/O argument checks the
// Python methods share.
#pragma once

#include <hipfile++/file.hpp>

#include <string>

#include "binding.hpp"

namespace hipfile::py_binding {

/// The memory range and file offset of one I/O call, checked against the buffer.
struct IoRange {
  Buffer buffer;
  void* ptr = nullptr;  ///< buffer.ptr + buf_offset
  std::size_t size = 0;
  std::int64_t file_offset = 0;
};

class PyFile {
 public:
  PyFile(py::handle path, const std::string& mode, py::handle direct);

  /// The open file; ValueError "I/O operation on closed file" when closed.
  [[nodiscard]] const File& file() const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const std::string& mode() const noexcept { return mode_; }
  [[nodiscard]] bool closed() const noexcept { return !file_; }
  void close();

  /// Resolves and checks read/write(buf, size, file_offset, buf_offset).
  [[nodiscard]] IoRange range(py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset,
                              Access access) const;
  /// "read of N bytes at offset O from 'path'" / "write of N bytes at offset O to 'path'".
  [[nodiscard]] std::string context(Access access, std::size_t size, std::int64_t offset) const;

 private:
  File file_;
  std::string path_;
  std::string mode_;
};

/// Starts the I/O of @p io on the File object @p file without waiting; returns a hipfile.Future.
py::object start_io(py::object file, IoRange io, Access access);

}  // namespace hipfile::py_binding
