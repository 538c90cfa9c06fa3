// SPDX-License-Identifier: MIT
/**
 * @file detail/errno_names.hpp
 * @brief Internal: the symbolic names of the errno values file I/O meets ("ENOENT"), so that
 *        Error::message() can print them beside strerror's text. Not part of the API.
 */
#pragma once

#include <cerrno>

namespace hipfile::detail {

/// "ENOENT" for ENOENT, or nullptr for a value not listed.
constexpr const char* errno_name(int e) noexcept {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ENOTTY: return "ENOTTY";
    case ETXTBSY: return "ETXTBSY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case ESPIPE: return "ESPIPE";
    case EROFS: return "EROFS";
    case EPIPE: return "EPIPE";
    case ERANGE: return "ERANGE";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ELOOP: return "ELOOP";
    case ENODATA: return "ENODATA";
    case EOVERFLOW: return "EOVERFLOW";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ESTALE: return "ESTALE";
    case EDQUOT: return "EDQUOT";
    case ECANCELED: return "ECANCELED";
    case EREMOTEIO: return "EREMOTEIO";
    default: return nullptr;
  }
}

}  // namespace hipfile::detail
