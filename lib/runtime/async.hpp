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
// Results follow the bytes-result convention of lib/runtime/dispatch.hpp.
#pragma once

#include <hipfile/hipfile.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "staging/engine.hpp"
#include "io/status.hpp"

namespace hipfile::engine {

/// Runs `fn` while no stream waits on an async operation's flag word: submissions wait until it
/// returns, and it starts once the operations in flight have finished. For freeing staging
/// memory: CUDA's hipHostFree and hipStreamDestroy hold the context's lock while the device
/// drains, and an executor thread raising a flag needs that lock for its copies, so freeing
/// while a stream waits on a flag never returns (doc/async-batch.md, bench/RESULTS.md).
void without_async_waits(const std::function<void()>& fn);

/// Test hook (async suite): every free flag word continues from `value`, so a test reaches the
/// 32-bit wrap in a few operations.
void advance_flag_words_for_test(std::uint32_t value);

/// fork() (the driver's atfork handlers): `prepare` takes the async state's locks, `after`
/// releases them; in the child it also forgets the parent's operations in flight, which no
/// thread of the child will ever finish.
void async_prepare_fork() noexcept;
void async_after_fork(bool in_child) noexcept;

Status stream_register(hipStream_t stream, unsigned flags);
Status stream_deregister(hipStream_t stream);

Status submit_async(Direction dir, hipFileHandle_t fh, void* buffer_base, std::size_t* size_p,
                            hoff_t* file_offset_p, hoff_t* buffer_offset_p, ssize_t* bytes_p,
                            hipStream_t stream);

}  // namespace hipfile::engine
