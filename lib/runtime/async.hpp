// SPDX-License-Identifier: MIT
// Stream-ordered (async) I/O.
//
// Every wait is one the runtime can see, and no stream's progress depends on device work queued
// elsewhere. At submission the operation's copies go on the caller's stream itself, between host
// functions that wait for host-side progress alone:
//
//   read:  [copy the window's bytes to staging] [host fn: start the preads, wait for piece k's]
//          [copy staging -> buffer] ... [host fn: finish]
//   write: [copy buffer -> staging] [host fn: start piece k's pwrite] ... [host fn: wait, finish]
//
// The window is [buffer_offset, + size) as submitted, cut into pieces of the staging slot's size
// that go through a ring of slots; a slot's reuse is ordered by the stream itself. A read first
// copies the window into staging, so bytes of it that the read does not reach (a short read, a
// failure, parameters that shrank before the stream reached the operation) are copied back
// unchanged. The preads and pwrites run on the instance's stream executor, on host memory only:
// they never wait for the GPU, so every host function returns. CPU-accessible memory takes no
// staging: the executor moves the bytes in place between the two host functions.
//
// Parameters not fixed by the stream are read when the stream reaches the operation; the
// region they then name must lie in the submitted window (a size may shrink, an offset move
// within it), else the operation fails with InvalidValue and moves nothing.
//
// An operation holds a lease on the instance from submission until the stream has passed it, so
// the last hipFileDriverClose waits for operations whose streams have not reached them yet.
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
