// SPDX-License-Identifier: MIT
// The plain POSIX calls of the header reader and the writer: owned descriptors, exact reads and
// writes, opening regular files only.
#include "fd.hpp"

namespace hipfile::safetensors::detail {

int pread_exact(int fd, void* dst, std::size_t n, std::uint64_t offset) noexcept {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return ENODATA;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

int pwrite_all(int fd, const void* src, std::size_t n, std::uint64_t offset) noexcept {
  const auto* p = static_cast<const char*>(src);
  while (n > 0) {
    const ssize_t r = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    if (r == 0) return EIO;
    p += r;
    n -= static_cast<std::size_t>(r);
    offset += static_cast<std::uint64_t>(r);
  }
  return 0;
}

const char* file_type_name(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a plain file";
}

OpenedFile open_regular(const std::string& path) noexcept {
  OpenedFile f;
  f.fd = UniqueFd(hipfile::detail::open_retry(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0));
  struct stat st {};
  if (f.fd.get() < 0 || ::fstat(f.fd.get(), &st) != 0) {
    f.error = errno;
    f.fd.reset();
    return f;
  }
  if (!S_ISREG(st.st_mode)) {
    f.not_regular = file_type_name(st.st_mode);
    f.fd.reset();
    return f;
  }
  const int flags = ::fcntl(f.fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(f.fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    f.error = errno;
    f.fd.reset();
    return f;
  }
  f.size = static_cast<std::uint64_t>(st.st_size);
  return f;
}

std::int64_t file_size(int fd) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return -errno;
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace hipfile::safetensors::detail
