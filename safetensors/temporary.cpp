// SPDX-License-Identifier: MIT
// write()'s temporary file: created exclusively under a random name, synced, renamed.
#include "temporary.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <hipfile++/detail/posix.hpp>
#include <hipfile-safetensors/write.hpp>

#include "fail.hpp"

namespace hipfile::safetensors::detail {

int random_suffix(std::string& out) {
  unsigned char bytes[8];
  for (std::size_t got = 0; got < sizeof bytes;) {
    const ssize_t r = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    got += static_cast<std::size_t>(r);
  }
  static constexpr char hex[] = "0123456789abcdef";
  out.clear();
  for (unsigned char b : bytes) out.append({hex[b >> 4], hex[b & 15]});
  return 0;
}

Result<Temporary> create_temporary(const std::string& path, mode_t mode, SuffixSource next) {
  std::string suffix;
  for (int attempt = 1;; ++attempt) {
    if (int e = next(suffix); e != 0)
      return fail(Errc::io_error, path, "", "naming its temporary file", hipfile::Error::from_errno(e));
    std::string name = path + ".tmp." + suffix;
    auto file = File::open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode, DirectIo::off);
    if (file) return Temporary{std::move(*file), std::move(name)};
    if (file.error().sys_errno() != EEXIST || attempt == kTemporaryAttempts)
      return fail(Errc::io_error, path, "", "cannot create its temporary file", file.error());
  }
}

std::optional<mode_t> kept_mode(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return st.st_mode & 0777;
}

int sync_folder(const std::string& path) noexcept {
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = hipfile::detail::open_retry(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return errno;
  const int e = ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
  hipfile::detail::close_quietly(fd);
  return e;
}

Result<void> replace_with(const std::string& path, Temporary& tmp, bool& renamed) {
  if (::fsync(tmp.file.fd()) != 0)
    return fail(Errc::io_error, path, "", "fsync of " + tmp.name, hipfile::Error::last_errno());
  if (auto r = tmp.file.close(); !r) return fail(Errc::io_error, path, "", "close", r.error());
  // Again: what was checked before the write may have been swapped for a FIFO or a device
  // since, and a rename replaces whatever is there.
  if (auto r = check_destination(path); !r) return r;
  if (::rename(tmp.name.c_str(), path.c_str()) != 0)
    return fail(Errc::io_error, path, "", "renaming " + tmp.name, hipfile::Error::last_errno());
  renamed = true;
  if (int e = sync_folder(path); e != 0)
    return fail(Errc::io_error, path, "", "fsync of its folder after the rename", hipfile::Error::from_errno(e));
  return {};
}

}  // namespace hipfile::safetensors::detail
