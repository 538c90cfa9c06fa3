// SPDX-License-Identifier: MIT
// Stream-ordered (async) I/O.
//
// An async read or write puts two things on the caller's stream: a host function that only
// hands the operation to the executor (it never blocks, so streams sharing the runtime's
// callback thread are not serialised), then hipStreamWaitValue32 on a pinned, device-mapped flag
// word, so the stream itself waits. An executor thread reads the deferred parameters, runs the
// I/O through do_io (the staging engine's own lanes and streams do the copies), stores the
// bytes result and then raises the flag word: the stream proceeds. Where the wait-value call is
// unavailable the submission fails with hipFileAsyncNotSupported; nothing blocks in a host
// function. An error return always means that nothing of the operation will run.
//
// The executor is the driver instance's (lib/runtime/executor.hpp). An operation holds a lease on
// the instance from its submission until it has finished, so the last hipFileDriverClose waits
// for operations whose streams have not reached them yet, and the executor's threads are joined
// after them.
//
// Results go to the operation's AsyncDone; lib/api/async.cpp stores them by the bytes-result
// convention of api/status.hpp.
#pragma once

#include <hip/hip_runtime_api.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "io/request.hpp"
#include "io/status.hpp"
#include "runtime/async_state.hpp"
#include "runtime/file_table.hpp"

namespace hipfile::engine {

/// An async operation's size and offsets where the caller keeps them: each is read at
/// submission and again when the stream reaches the operation, unless the stream fixed it.
struct AsyncArgs {
  const std::size_t* size = nullptr;
  const off_t* file_offset = nullptr;
  const off_t* buffer_offset = nullptr;
};

/// Stores an operation's result where its caller looks for it (lib/api: *bytes_p, by the
/// bytes-result convention). Called once with zero bytes at submission, before the operation
/// may run, and once with the result; never after a failed submission.
using AsyncDone = std::function<void(const IoResult&)>;

/// Registers `stream` with the parameters it fixes; InvalidValue when it is registered already.
Status stream_register(hipStream_t stream, StreamFixed fixed);
Status stream_deregister(hipStream_t stream);

/// Queues one read or write on `stream`. An error return means that nothing of it will run.
Status submit_async(Direction dir, FileId fh, void* buffer_base, const AsyncArgs& args, AsyncDone done,
                    hipStream_t stream);

}  // namespace hipfile::engine
