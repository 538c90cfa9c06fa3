// SPDX-License-Identifier: MIT
// What the directory under test sits on: file system type, mount, O_DIRECT and its alignment.
#pragma once

#include <cstdint>
#include <string>

namespace hipfile::tools::check {

struct FsInfo {
  std::string path;           // resolved directory
  std::string type;           // "ext4" from statfs f_type (name or hex)
  std::uint64_t magic = 0;
  std::string mount_point, mount_source, mount_fstype, mount_options;  // from /proc/self/mountinfo
  bool odirect = false;
  std::string odirect_detail;
  std::uint32_t dio_mem_align = 0, dio_offset_align = 0;  // statx STATX_DIOALIGN; 0: unknown
  std::string error;          // the directory could not be examined
};

/// Examines `dir`; creates and removes one probe file there for the O_DIRECT test.
FsInfo probe_filesystem(const std::string& dir);

}  // namespace hipfile::tools::check
