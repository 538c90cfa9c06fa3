// SPDX-License-Identifier: MIT
// Page-cache reads without a CPU copy: a read-only shared mapping of a file range whose pages
// are all in the page cache. The engine pins parts of it with hipHostRegister(ReadOnly) and lets
// the GPU's copy engine read the page-cache pages directly. One thread staging through pinned
// memory is bound by the CPU's copy; pinning and copying the cached pages ran far faster on one
// thread (bench/mmap_register_bw; see bench/HISTORY.md, "Earlier figures (for the record)").
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace hipfile::engine {

struct Config;
struct Job;
class Lane;

class FileMapping {
 public:
  FileMapping() = default;
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  /// Maps [offset, end) of `fd`, clipped to the file's current size, if every page of it is in
  /// the page cache. False (and nothing mapped) otherwise: the caller stages instead.
  bool map_if_resident(int fd, off_t offset, off_t end);

  /// Address of file offset `off` (inside the mapped range).
  const std::byte* at(off_t off) const noexcept { return base_ + (off - file_base_); }
  /// File offset where the mapping ends (the file's end if the range went past it).
  off_t end() const noexcept { return file_base_ + static_cast<off_t>(length_); }
  explicit operator bool() const noexcept { return base_ != nullptr; }
  /// Forgets the mapping without unmapping it: the device may still read it (a wait failed).
  void abandon() noexcept { base_ = nullptr; }

 private:
  const std::byte* base_ = nullptr;
  off_t file_base_ = 0;     // page-aligned file offset of base_
  std::size_t length_ = 0;
};

/// The mapped mover: a thread's part of a read whose job has a mapping. It claims runs of chunks
/// (config.map_chunk bytes), pins each run's pages and queues their copy to the device; where the
/// runtime cannot pin them, it stages the run and every later read of the file.
void run_mapped_read(Job& job, Lane& lane, const Config& config);

}  // namespace hipfile::engine
