// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/driver.hpp"
#include "runtime/stats.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::Driver;
using hipfile::engine::Status;
namespace stats = hipfile::engine::stats;

namespace {

hipFileError_t handle_register(hipFileHandle_t* fh, hipFileDescr_t* descr) {
  return guarded([&]() -> hipFileError_t {
    if (fh == nullptr || descr == nullptr) return {hipFileInvalidValue, hipSuccess};
    if (hipfile::api::enum_value(descr->type) != hipFileHandleTypeOpaqueFD) return {hipFileIONotSupported, hipSuccess};
    hipfile::engine::FileId id = 0;
    const Status st = Driver::get().register_file(descr->handle.fd, id);
    if (st.ok()) *fh = hipfile::api::file_handle(id);
    return to_error(st);
  });
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t* fh, hipFileDescr_t* descr) {
  hipFileError_t e = handle_register(fh, descr);
  stats::count(stats::Call::HandleRegister, e.err == hipFileSuccess);
  return e;
}

HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh) {
  bool removed = false;
  try {
    removed = fh != nullptr && Driver::get().files.remove(hipfile::api::file_id(fh));  // unknown handles are ignored, as upstream
  } catch (...) {
  }
  stats::count(stats::Call::HandleDeregister, removed);
}

}  // extern "C"
