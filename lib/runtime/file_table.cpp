// SPDX-License-Identifier: MIT
#include "runtime/file_table.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "sys/log.hpp"
#include "sys/posix.hpp"

namespace hipfile::engine {

namespace {

// Handles are never reused, so a handle kept after deregistration cannot reach a newer file.
// The tag keeps them from looking like small integers or valid heap pointers.
constexpr std::uintptr_t kHandleTag = 0x4846000000000000ull;

FileId tagged(std::uintptr_t id) noexcept { return kHandleTag | (id << 4); }

}  // namespace

Status FileTable::prepare(int fd, std::shared_ptr<File>& out) {
  sys::FileInfo info;
  if (int r = sys::describe(fd, info); r != 0) return Status::of(Error::InvalidValue);
  if (!info.regular && !info.block) return Status::of(Error::InvalidFileType);
  // An O_PATH descriptor cannot read or write; a reopen would give it access it never had.
  if ((info.flags & O_PATH) != 0 || (info.flags & O_ACCMODE) == O_ACCMODE)
    return Status::of(Error::InvalidFileOpenFlag);

  auto file = std::make_shared<File>();
  file->client_fd = fd;
  file->dev = info.dev;
  file->ino = info.ino;
  file->access = info.flags & O_ACCMODE;
  file->client_direct = (info.flags & O_DIRECT) != 0;
  if (info.dio_offset_align) file->dio_align = std::max<std::uint32_t>(info.dio_offset_align, 512);
  if (info.dio_mem_align) file->mem_align = std::max<std::uint32_t>(info.dio_mem_align, 8);

  int buffered = sys::reopen(fd, info.flags, false);
  if (buffered < 0 && !file->client_direct) {
    // The reopen is refused (a descriptor from a more privileged process, a file made mode 000
    // after open, an O_APPEND descriptor of an append-only file): serve buffered I/O through a
    // duplicate of the client's own descriptor, as upstream keeps using it.
    const int refused = -buffered;
    buffered = sys::duplicate(fd);
    if (buffered >= 0) {
      file->append_only = (info.flags & O_APPEND) != 0;
      HIPFILE_LOG(Info, "fd %d: reopen through /proc/self/fd refused (%s); its duplicate serves buffered I/O%s",
                  fd, std::strerror(refused), file->append_only ? ", and writes are refused (O_APPEND)" : "");
      file->buffered_fd = buffered;
      out = std::move(file);
      return Status::success();
    }
  }
  if (buffered < 0) return Status::of(Error::GetNewFDFailed);
  file->buffered_fd = buffered;
  int direct = sys::reopen(fd, info.flags, true);
  // EINVAL: the file system has no O_DIRECT (tmpfs); the file is served buffered.
  if (direct >= 0) file->direct_fd = direct;
  out = std::move(file);
  return Status::success();
}

Status FileTable::insert(std::shared_ptr<File> file, const Config& config, FileId& out) {
  file->use_direct = file->direct_fd >= 0 && (file->client_direct || config.force_odirect);
  const int fd = file->client_fd;
  std::shared_ptr<File> stale;
  {
    std::unique_lock lock(mu_);
    if (auto it = by_fd_.find(fd); it != by_fd_.end()) {
      const File& old = *by_handle_.at(it->second);
      if (old.dev == file->dev && old.ino == file->ino && old.access == file->access)
        return Status::of(Error::HandleAlreadyRegistered);  // `file` closes its fds
      stale = take(it->second);
    }
    std::uintptr_t id = next_id_++;
    out = tagged(id);
    by_handle_.emplace(out, file);
    by_fd_[fd] = out;
  }
  if (stale) stale->inflight.wait_idle();
  return Status::success();
}

std::shared_ptr<File> FileTable::take(std::uintptr_t key) {
  auto it = by_handle_.find(key);
  if (it == by_handle_.end()) return nullptr;
  std::shared_ptr<File> f = std::move(it->second);
  by_handle_.erase(it);
  if (auto fit = by_fd_.find(f->client_fd); fit != by_fd_.end() && fit->second == key) by_fd_.erase(fit);
  return f;
}

Lease<File> FileTable::find(FileId id) const {
  std::shared_lock lock(mu_);
  auto it = by_handle_.find(id);
  if (it == by_handle_.end()) return {};
  return Lease<File>(it->second);
}

bool FileTable::remove(FileId id) {
  std::shared_ptr<File> f;
  {
    std::unique_lock lock(mu_);
    f = take(id);
  }
  if (!f) return false;
  f->inflight.wait_idle();
  return true;
}

void FileTable::clear() {
  std::vector<std::shared_ptr<File>> all;
  {
    std::unique_lock lock(mu_);
    for (auto& [key, f] : by_handle_) all.push_back(std::move(f));
    by_handle_.clear();
    by_fd_.clear();
  }
  for (auto& f : all) f->inflight.wait_idle();
}

}  // namespace hipfile::engine
