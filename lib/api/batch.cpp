// SPDX-License-Identifier: MIT
// Batch I/O: see runtime/batch.hpp. The argument checks of hipFile 0.5 live here (nr = 0 is
// hipFileInvalidValue for Submit and GetStatus); every call is counted for hipFileGetStatsL1.
#include <hipfile/hipfile.h>

#include <cstring>
#include <vector>

#include "api/guard.hpp"
#include "api/status.hpp"
#include "runtime/batch.hpp"
#include "runtime/batch_table.hpp"
#include "runtime/stats.hpp"

using hipfile::api::guarded;
using hipfile::api::to_error;
using hipfile::api::batch_id;
using hipfile::engine::batch_find;
using hipfile::engine::BatchEvent;
using hipfile::engine::BatchIo;
using hipfile::engine::BatchState;
namespace stats = hipfile::engine::stats;

namespace {

constexpr hipFileError_t kInvalid{hipFileInvalidValue, hipSuccess};

bool succeeded(hipFileError_t e) { return e.err == hipFileSuccess; }

// GetStatus reports each finished operation once: count them as complete (ok) or failed (err).
void count_completions(const hipFileIOEvents_t* events, unsigned n) {
  std::uint64_t done = 0, failed = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (events[i].status == hipFileComplete) ++done;
    if (events[i].status == hipFileFailed) ++failed;
  }
  if (done) stats::count(stats::Call::BatchComplete, true, done);
  if (failed) stats::count(stats::Call::BatchComplete, false, failed);
}

// One operation as the runtime takes it. The caller's mode and opcode are ints from C: compared
// as ints, never loaded as C++ enums.
BatchIo to_batch_io(const hipFileIOParams_t& p) {
  int mode, opcode;
  std::memcpy(&mode, &p.mode, sizeof mode);
  std::memcpy(&opcode, &p.opcode, sizeof opcode);
  BatchIo io;
  io.known_op = mode == hipFileBatch && (opcode == hipFileBatchRead || opcode == hipFileBatchWrite);
  io.dir = opcode == hipFileBatchWrite ? hipfile::engine::Direction::Write : hipfile::engine::Direction::Read;
  io.file = hipfile::api::file_id(p.fh);
  io.base = p.u.batch.devPtr_base;
  io.size = p.u.batch.size;
  io.file_offset = p.u.batch.file_offset;
  io.buffer_offset = p.u.batch.devPtr_offset;
  io.cookie = p.cookie;
  return io;
}

hipFileStatus_t to_status(BatchState s) {
  switch (s) {
    case BatchState::Waiting: return hipFileWaiting;
    case BatchState::Pending: return hipFilePending;
    case BatchState::Complete: return hipFileComplete;
    case BatchState::Failed: return hipFileFailed;
    case BatchState::Canceled: return hipFileCanceled;
  }
  return hipFileFailed;
}

// The event as C reports it; `ret` follows the bytes-result convention (api/status.hpp).
hipFileIOEvents_t to_event(const BatchEvent& e) {
  hipFileIOEvents_t out{};
  out.cookie = e.cookie;
  out.status = to_status(e.state);
  out.ret = static_cast<std::size_t>(hipfile::api::bytes_result(e.result));
  return out;
}

hipFileError_t submit(hipFileBatchHandle_t batch_idp, unsigned nr, const hipFileIOParams_t* iocbp) {
  if (nr == 0 || iocbp == nullptr) return kInvalid;
  auto batch = batch_find(batch_id(batch_idp));
  if (!batch) return kInvalid;
  std::vector<BatchIo> ios;
  ios.reserve(nr);
  for (unsigned i = 0; i < nr; ++i) ios.push_back(to_batch_io(iocbp[i]));
  return to_error(batch->submit(nr, ios.data()));
}

hipFileError_t get_status(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned* nr, hipFileIOEvents_t* iocbp,
                          const timespec* timeout) {
  if (nr == nullptr || *nr == 0 || iocbp == nullptr) return kInvalid;
  auto batch = batch_find(batch_id(batch_idp));
  if (!batch) return kInvalid;
  std::vector<BatchEvent> events(*nr);
  unsigned n = *nr;
  hipFileError_t e = to_error(batch->get_status(min_nr, n, events.data(), timeout));
  if (!succeeded(e)) return e;
  for (unsigned i = 0; i < n; ++i) iocbp[i] = to_event(events[i]);
  *nr = n;
  count_completions(iocbp, n);
  return e;
}

}  // namespace

extern "C" {

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t* batch_idp, unsigned max_nr) {
  hipFileError_t e = guarded([&]() -> hipFileError_t {
    if (batch_idp == nullptr) return kInvalid;
    hipfile::engine::BatchId id = 0;
    const hipfile::engine::Status st = hipfile::engine::batch_setup(id, max_nr);
    if (st.ok()) *batch_idp = hipfile::api::batch_handle(id);
    return to_error(st);
  });
  stats::count(stats::Call::BatchSetup, succeeded(e));
  return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t* iocbp, unsigned /*flags: reserved*/) {
  hipFileError_t e = guarded([&] { return submit(batch_idp, nr, iocbp); });
  stats::count(stats::Call::BatchSubmit, succeeded(e));
  if (nr != 0) stats::count(stats::Call::BatchEnqueued, succeeded(e), nr);
  return e;
}

HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr, unsigned* nr,
                                                   hipFileIOEvents_t* iocbp, struct timespec* timeout) {
  return guarded([&] { return get_status(batch_idp, min_nr, nr, iocbp, timeout); });
}

HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp) {
  hipFileError_t e = guarded([&]() -> hipFileError_t {
    auto batch = batch_find(batch_id(batch_idp));
    if (!batch) return kInvalid;
    batch->cancel();
    return {hipFileSuccess, hipSuccess};
  });
  stats::count(stats::Call::BatchCancel, succeeded(e));
  return e;
}

HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp) {
  bool known = false;
  try {
    known = batch_find(batch_id(batch_idp)) != nullptr;
    hipfile::engine::batch_destroy(batch_id(batch_idp));
  } catch (...) {
  }
  stats::count(stats::Call::BatchDestroy, known);
}

}  // extern "C"
