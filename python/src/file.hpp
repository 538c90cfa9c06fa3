// SPDX-License-Identifier: MIT
// hipfile.File: a hipfile::File opened from a path and mode, with the I/O argument checks the
// Python methods share and the lock that keeps close() from pulling the file out from under a
// call running on another thread.
#pragma once

#include <hipfile++/file.hpp>

#include <atomic>
#include <optional>
#include <shared_mutex>
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
  PyFile(py::handle path, py::handle mode, py::handle direct);
  PyFile(const PyFile&) = delete;
  PyFile& operator=(const PyFile&) = delete;

  /**
   * Runs @p op(const File&) with the GIL released while holding this object's lock shared, so
   * close() on another thread waits for it; ValueError "I/O operation on closed file" when
   * closed. The lock is taken only without the GIL (and @p op must not touch Python): a thread
   * holding it never waits for the GIL, so the two cannot deadlock.
   */
  template <class Op>
  auto with_file(Op&& op) const {
    std::optional<decltype(op(file_))> out;
    {
      py::gil_scoped_release nogil;
      std::shared_lock lock(mutex_);
      if (file_) out.emplace(op(file_));
    }
    if (!out) throw_closed();
    return std::move(*out);
  }

  /// The path's bytes as given (what open(2) saw; error messages use them).
  [[nodiscard]] const std::string& path_bytes() const noexcept { return path_; }
  [[nodiscard]] py::str path() const { return fs_text(path_); }
  [[nodiscard]] const std::string& mode() const noexcept { return mode_; }
  [[nodiscard]] bool closed() const noexcept { return closed_.load(std::memory_order_acquire); }
  /// ValueError "I/O operation on closed file" when closed.
  void check_open() const;
  void close();

  /// Resolves and checks read/write(buf, size, file_offset, buf_offset).
  [[nodiscard]] IoRange range(py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset,
                              Access access) const;
  /// "read of N bytes at offset O from 'path'" / "write of N bytes at offset O to 'path'".
  [[nodiscard]] std::string context(Access access, std::size_t size, std::int64_t offset) const;

 private:
  [[noreturn]] static void throw_closed();

  File file_;
  std::string path_;
  std::string mode_;
  mutable std::shared_mutex mutex_;  // shared: a call using file_; exclusive: close()
  std::atomic<bool> closed_{false};  // read without the lock by closed and the fast checks
};

/// Starts the I/O of @p io on the File object @p file without waiting; returns a hipfile.Future.
py::object start_io(py::object file, IoRange io, Access access);

}  // namespace hipfile::py_binding
