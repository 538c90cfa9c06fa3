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
// The executor is the driver instance's (lib/engine/executor.hpp). An operation holds a lease on
// the instance from its submission until it has finished, so the last hipFileDriverClose waits
// for operations whose streams have not reached them yet, and the executor's threads are joined
// after them.
//
// Results follow the bytes-result convention of lib/engine/io.hpp.
#pragma once

#include <hipfile/hipfile.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "engine/engine.hpp"
#include "engine/status.hpp"

namespace hipfile::engine {

/// Test hook (async suite): every free flag word continues from `value`, so a test reaches the
/// 32-bit wrap in a few operations.
void advance_flag_words_for_test(std::uint32_t value);

hipFileError_t stream_register(hipStream_t stream, unsigned flags);
hipFileError_t stream_deregister(hipStream_t stream);

hipFileError_t submit_async(Direction dir, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                            hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                            hipStream_t stream);

}  // namespace hipfile::engine
