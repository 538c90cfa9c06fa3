// SPDX-License-Identifier: MIT
// The data file hipfile-io measures: created with the verifiable pattern when missing or too
// small, and opened with the flags of the run (buffered or O_DIRECT).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace hipfile::tools::io {

/// Makes sure `path` exists with at least `size` bytes of the pattern; writes it with `threads`
/// writers when missing, too small, or `recreate`. Returns true when it wrote the file.
bool ensure_data_file(const std::string& path, std::uint64_t size, bool recreate, unsigned threads);
/// True when the file's first and last bytes up to `size` hold the pattern (a cheap sanity check
/// that catches files overwritten by write runs before a --verify read reports a mismatch).
bool looks_like_pattern(const std::string& path, std::uint64_t size);
/// open(path, O_RDWR or, for a run that only reads, O_RDONLY [| O_DIRECT]); throws Failure,
/// naming the file system when O_DIRECT is refused.
int open_data_file(const std::string& path, bool direct, bool writable);

/// One data file of a run, open with the run's flags (read-only unless the run writes, so a file
/// the user may only read can be measured); closed when it goes. Whatever registers its
/// descriptor with hipFile must be gone first.
class DataFile {
 public:
  DataFile(std::string path, bool direct, bool writable)
      : path_(std::move(path)), fd_(open_data_file(path_, direct, writable)) {}
  ~DataFile();
  DataFile(DataFile&& other) noexcept : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;
  DataFile& operator=(DataFile&&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace hipfile::tools::io
