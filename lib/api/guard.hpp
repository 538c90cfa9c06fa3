// SPDX-License-Identifier: MIT
// The C boundary: no C++ exception may cross it. Every entry point runs its body through one
// of these, which turns an escaping exception into hipFileInternalError (or -hipFileInternalError).
#pragma once

#include <hipfile/hipfile.h>

#include <sys/types.h>

#include <cstring>

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

/// The integer a C caller passed where the C API has an enum type, read without loading a C++
/// enum: a value outside the enum's range is undefined behaviour as one, and C passes anything.
/// Validate the integer, then convert.
template <class E>
int enum_value(const E& e) noexcept {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

}  // namespace hipfile::api
