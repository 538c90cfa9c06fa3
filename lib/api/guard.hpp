// SPDX-License-Identifier: MIT
// The C boundary: no C++ exception may cross it. Every entry point runs its body through one
// of these, which turns an escaping exception into hipFileInternalError (or -hipFileInternalError).
#pragma once

#include <hipfile/hipfile.h>

#include <sys/types.h>

namespace hipfile::api {

template <class F>
hipFileError_t guarded(F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return {hipFileInternalError, hipSuccess};
  }
}

template <class F>
ssize_t guarded_io(F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return -static_cast<ssize_t>(hipFileInternalError);
  }
}

}  // namespace hipfile::api
