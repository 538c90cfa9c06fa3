// SPDX-License-Identifier: MIT
#include <hipfile/hipfile.h>

#include <memory>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "fastpath/fastpath.hpp"
#include "runtime/driver.hpp"
#include "runtime/stats.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::engine::Driver;
using hipfile::engine::File;
using hipfile::engine::FileTable;
using hipfile::engine::Status;
namespace stats = hipfile::engine::stats;

namespace {

hipFileError_t handle_register(hipFileHandle_t* fh, hipFileDescr_t* descr) {
  return guarded([&]() -> hipFileError_t {
    if (fh == nullptr || descr == nullptr) return {hipFileInvalidValue, hipSuccess};
    if (hipfile::api::enum_value(descr->type) != hipFileHandleTypeOpaqueFD) return {hipFileIONotSupported, hipSuccess};
    std::shared_ptr<File> file;
    // A descriptor that cannot be used leaves the driver untouched (no implicit open).
    if (Status st = FileTable::prepare(descr->handle.fd, file); !st.ok()) return to_error(st);
    Driver& driver = Driver::get();
    return driver.register_open([&] {
      // Fastpath per-file registration, before the file is visible to I/O; refused = engine-only.
      const std::shared_ptr<hipfile::engine::Instance> instance = driver.lease();
      if (!instance) return hipFileError_t{hipFileInternalError, hipSuccess};  // a forked child short of memory
      hipfile::fastpath::attach(instance->fastpath(), *file);
      hipfile::engine::FileId id = 0;
      const Status st = driver.files.insert(std::move(file), instance->config(), id);
      if (st.ok()) *fh = hipfile::api::file_handle(id);
      return to_error(st);
    });
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
