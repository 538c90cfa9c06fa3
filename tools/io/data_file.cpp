// SPDX-License-Identifier: MIT
#include "data_file.hpp"

#include "errors.hpp"
#include "file_type.hpp"
#include "pattern.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <thread>
#include <vector>

namespace hipfile::tools::io {

namespace {

// A pattern file larger than the free space would fill the file system and fail at its end, so
// it is refused before the first byte is written.
void check_free_space(const std::string& path, std::uint64_t size) {
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  struct statvfs fs {};
  if (statvfs(folder.c_str(), &fs) != 0) return;  // the create below reports a missing folder
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (size > free_bytes)
    throw Failure{fmt::format("--file: {} would need {} bytes, and its file system has {} free", path, size, free_bytes)};
}

}  // namespace

bool ensure_data_file(const std::string& path, std::uint64_t size, bool recreate, unsigned threads) {
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  // Never written over: a device (its pattern would replace a disk's contents), a FIFO (the open
  // would wait for a reader), a directory.
  if (exists && !non_regular_kind(st.st_mode).empty())
    throw Failure{fmt::format("--file: {} is {}, not a regular file", path, non_regular_kind(st.st_mode))};
  if (!recreate && exists && static_cast<std::uint64_t>(st.st_size) >= size) return false;
  check_free_space(path, exists ? size - std::min<std::uint64_t>(size, static_cast<std::uint64_t>(st.st_blocks) * 512) : size);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Failure{fmt::format("cannot create {}: {}", path, std::strerror(errno))};
  constexpr std::uint64_t kBlock = 8u << 20;
  std::atomic<std::uint64_t> next{0};
  std::atomic<int> error{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::max(1u, threads); ++t)
    pool.emplace_back([&] {
      std::vector<char> buf(kBlock);
      for (;;) {
        std::uint64_t off = next.fetch_add(kBlock);
        if (off >= size || error != 0) return;
        std::size_t n = static_cast<std::size_t>(std::min(kBlock, size - off));
        fill_pattern(buf.data(), off, n);
        for (std::size_t done = 0; done < n;) {
          ssize_t w = pwrite(fd, buf.data() + done, n - done, static_cast<off_t>(off + done));
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) {
            error = w < 0 ? errno : EIO;
            return;
          }
          done += static_cast<std::size_t>(w);
        }
      }
    });
  for (auto& t : pool) t.join();
  int rc = close(fd);
  if (error != 0) throw Failure{fmt::format("writing {}: {}", path, std::strerror(error))};
  if (rc != 0) throw Failure{fmt::format("closing {}: {}", path, std::strerror(errno))};
  return true;
}

bool looks_like_pattern(const std::string& path, std::uint64_t size) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[4096];
  bool ok = true;
  for (std::uint64_t off : {std::uint64_t{0}, size > sizeof buf ? size - sizeof buf : 0}) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, size));
    ok = ok && pread(fd, buf, n, static_cast<off_t>(off)) == static_cast<ssize_t>(n) &&
         !check_pattern(buf, off, n).has_value();
  }
  close(fd);
  return ok;
}

DataFile::~DataFile() {
  if (fd_ >= 0) close(fd_);
}

int open_data_file(const std::string& path, bool direct, bool writable) {
  std::string problem;
  int fd = open_regular(path, (writable ? O_RDWR : O_RDONLY) | (direct ? O_DIRECT : 0), 0, problem);
  if (fd >= 0) return fd;
  if (direct && errno == EINVAL)
    throw Failure{fmt::format("{}: the file system refuses O_DIRECT (tmpfs?); use --buffered or another "
                              "directory", path)};
  throw Failure{problem};
}

}  // namespace hipfile::tools::io
