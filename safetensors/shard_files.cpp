// SPDX-License-Identifier: MIT
// The shard files of a load: their sizes checked against the opened checkpoint, and a
// registered descriptor of each (the checkpoint keeps its own).
#include "shard_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "fail.hpp"
#include "fd.hpp"

namespace hipfile::safetensors::detail {
namespace {

/// The first tensor of shard @p shard, to name in errors about the shard.
std::string first_tensor(const Checkpoint& c, std::size_t shard) {
  for (const auto& t : c.tensors())
    if (t.shard == shard) return t.name;
  return "";
}

/// A descriptor of the same open file as @p fd: a duplicate, or with @p direct an O_DIRECT
/// reopen through /proc/self/fd (the same inode, whatever happened to the name since), a
/// duplicate where the file system refuses O_DIRECT. -1 with errno on failure.
int reopen(int fd, bool direct) noexcept {
  if (direct) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    const int d = hipfile::detail::open_retry(self.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC, 0);
    if (d >= 0 || errno != EINVAL) return d;
  }
  return ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/// A hipfile::File of shard @p i's file.
Result<File> register_shard(const Checkpoint& c, std::size_t i, bool direct) {
  const int fd = reopen(c.shard_fd(i), direct);
  if (fd < 0) return fail(Errc::io_error, c.shards()[i].path, "", "reopen", hipfile::Error::last_errno());
  auto f = File::adopt(fd);
  if (!f) {
    hipfile::detail::close_quietly(fd);
    return fail(Errc::io_error, c.shards()[i].path, "", "hipFileHandleRegister", f.error());
  }
  return std::move(*f);
}

}  // namespace

Result<void> check_shard_sizes(const Checkpoint& c, const std::vector<char>& used) {
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) continue;
    const Shard& s = c.shards()[i];
    const std::int64_t now = file_size(c.shard_fd(i));
    if (now < 0) return fail(Errc::io_error, s.path, "", "fstat", hipfile::Error::from_errno(static_cast<int>(-now)));
    if (static_cast<std::uint64_t>(now) != s.size)
      return fail(Errc::shard_changed, s.path, first_tensor(c, i),
                  "the file is now " + std::to_string(now) + " bytes; it was " + std::to_string(s.size) +
                      " when the checkpoint was opened");
  }
  return {};
}

Result<std::vector<File>> register_shards(const Checkpoint& c, const std::vector<char>& used, bool direct) {
  std::vector<File> files(c.shards().size());
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!used[i]) continue;
    auto f = register_shard(c, i, direct);
    if (!f) return fail(f.error());
    files[i] = std::move(*f);
  }
  return files;
}

Error read_failure(const std::string& file, const std::string& tensor, std::uint64_t bytes, std::uint64_t offset,
                   const hipfile::Error& cause, const std::string& into) {
  const std::string where = std::to_string(bytes) + " bytes at offset " + std::to_string(offset);
  if (cause.sys_errno() == ENODATA)
    return Error(Errc::shard_changed, file, tensor, "the file ended while reading " + where + " (did it shrink?)");
  return Error(Errc::io_error, file, tensor, "reading " + where + into, cause);
}

}  // namespace hipfile::safetensors::detail
