// SPDX-License-Identifier: MIT
#include "engine/mapped.hpp"

#include "sys/page_cache.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hipfile::engine {

FileMapping::~FileMapping() {
  if (base_) ::munmap(const_cast<std::byte*>(base_), length_);
}

bool FileMapping::map_if_resident(int fd, off_t offset, off_t end) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (end > st.st_size) end = st.st_size;  // never map past the end: touching it is SIGBUS
  if (offset >= end) return false;
  const off_t page = ::sysconf(_SC_PAGESIZE);
  const off_t first = offset - offset % page;
  const auto length = static_cast<std::size_t>(end - first);
  void* p = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, first);
  if (p == MAP_FAILED) return false;
  // Cold pages would be faulted in one at a time by the pinning: the staged path, with its
  // parallel large preads (or O_DIRECT), reads them faster.
  if (!sys::mapping_resident(p, length)) {
    ::munmap(p, length);
    return false;
  }
  base_ = static_cast<const std::byte*>(p);
  file_base_ = first;
  length_ = length;
  return true;
}

}  // namespace hipfile::engine
