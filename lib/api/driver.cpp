// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/driver.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::Driver;

extern "C" {

HIPFILE_API hipFileError_t hipFileDriverOpen(void) {
  return guarded([] { return to_error(Driver::get().open()); });
}

HIPFILE_API hipFileError_t hipFileDriverClose(void) {
  return guarded([] { return to_error(Driver::get().close()); });
}

HIPFILE_API int64_t hipFileUseCount(void) {
  try {
    return Driver::get().use_count();
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
