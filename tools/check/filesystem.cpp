// SPDX-License-Identifier: MIT
#include "filesystem.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace hipfile::tools::check {
namespace {

const char* fs_name(std::uint64_t magic) {
  switch (magic) {
    case 0xEF53: return "ext2/3/4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x858458F6: return "ramfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0xFF534D42: return "cifs";
    case 0xFE534D42: return "smb2";
    case 0x2FC12FC1: return "zfs";
    case 0xF2F52010: return "f2fs";
    case 0x65735546: return "fuse";
    case 0x0BD00BD0: return "lustre";
    case 0x47504653: return "gpfs";
    case 0x19830326: return "beegfs";
    case 0x00C36400: return "ceph";
    case 0xCA451A4E: return "bcachefs";
    case 0x73717368: return "squashfs";
    case 0x4D44: return "vfat";
    case 0x2011BAB0: return "exfat";
    case 0x5346544E: return "ntfs";
    case 0x9FA0: return "proc";
    default: return nullptr;
  }
}

// mountinfo fields: id parent major:minor root mountpoint options [optional...] - fstype source superopts
void find_mount(FsInfo& info, dev_t dev) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line, want = fmt::format("{}:{}", major(dev), minor(dev));
  std::size_t best = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, mnt, opts, tok;
    f >> id >> parent >> devno >> root >> mnt >> opts;
    if (devno != want) continue;
    while (f >> tok && tok != "-") {
    }
    std::string fstype, source, super;
    f >> fstype >> source >> super;
    // Several mounts can share a device (bind mounts); the deepest prefix of the path is ours.
    bool prefix = info.path.rfind(mnt, 0) == 0 && (mnt == "/" || info.path.size() == mnt.size() ||
                                                   info.path[mnt.size()] == '/');
    if (prefix && mnt.size() + 1 > best) {
      best = mnt.size() + 1;
      info.mount_point = mnt;
      info.mount_fstype = fstype;
      info.mount_source = source;
      info.mount_options = opts + (super.empty() ? "" : "," + super);
    }
  }
}

void probe_direct(FsInfo& info) {
  std::string path = info.path + "/.hipfile-check-odirect-XXXXXX";
  std::string tmpl = path;
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    info.odirect_detail = fmt::format("cannot create a probe file: {}", std::strerror(errno));
    return;
  }
  close(fd);
  fd = open(tmpl.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd >= 0) {
    info.odirect = true;
    info.odirect_detail = "open(O_DIRECT) succeeds";
    close(fd);
  } else {
    info.odirect_detail = fmt::format("open(O_DIRECT) fails: {}", std::strerror(errno));
  }
#ifdef STATX_DIOALIGN
  struct statx sx {};
  if (statx(AT_FDCWD, tmpl.c_str(), 0, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN)) {
    info.dio_mem_align = sx.stx_dio_mem_align;
    info.dio_offset_align = sx.stx_dio_offset_align;
  }
#endif
  unlink(tmpl.c_str());
}

}  // namespace

FsInfo probe_filesystem(const std::string& dir) {
  FsInfo info;
  char resolved[PATH_MAX];
  if (realpath(dir.c_str(), resolved) == nullptr) {
    info.error = fmt::format("{}: {}", dir, std::strerror(errno));
    return info;
  }
  info.path = resolved;
  struct stat st {};
  if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode)) {
    info.error = fmt::format("{} is not a directory", dir);
    return info;
  }
  struct statfs sf {};
  if (statfs(resolved, &sf) == 0) {
    info.magic = static_cast<std::uint64_t>(sf.f_type) & 0xffffffffu;
    const char* name = fs_name(info.magic);
    info.type = name != nullptr ? name : fmt::format("unknown (0x{:x})", info.magic);
  }
  find_mount(info, st.st_dev);
  // ext2/3/4 share one magic number; the mount table knows which one it is.
  if (info.magic == 0xEF53 && !info.mount_fstype.empty()) info.type = info.mount_fstype;
  probe_direct(info);
  return info;
}

}  // namespace hipfile::tools::check
