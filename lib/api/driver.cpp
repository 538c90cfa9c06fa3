// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "runtime/driver.hpp"

using hipfile::api::guarded;
using hipfile::engine::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverOpen(void) {
  return guarded([] { return Driver::get().open().to_error(); });
}

HIPFILE_API hipFileError_t hipFileDriverClose(void) {
  return guarded([] { return Driver::get().close().to_error(); });
}

HIPFILE_API int64_t hipFileUseCount(void) {
  try {
    return Driver::get().use_count();
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
