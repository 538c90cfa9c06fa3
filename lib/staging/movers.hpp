// SPDX-License-Identifier: MIT
// The movers: what one thread does with its part of a job. Each claims chunks until none is
// left or the job failed, and leaves its lane drained. Engine::run (engine.cpp) picks one by the
// request's memory and direction; the mapped read is in mapped.hpp.
#pragma once

#include <sys/types.h>

namespace hipfile::engine {

struct Config;
struct Job;
class Lane;

/// CPU-accessible memory: the file is read into it, or written from it, directly.
void run_host(Job& job, const Config& config);
/// Device memory, read: each chunk is read into the lane's next slot and copied from there.
void run_read(Job& job, Lane& lane, const Config& config);
/// Device memory, write: up to `depth` copies to the slots run ahead of the writes from them.
void run_write(Job& job, Lane& lane);

/// Reads [a, b) into the lane's next slot and queues its copy to the device. False when the job
/// failed. `unconfirmed` is the lowest file offset whose copy on this lane is not known to have
/// finished: a HIP failure puts everything from there in doubt. track=false: no event for this
/// copy (the caller drains the lane before the slot is reused).
bool stage_piece(Job& job, Lane& lane, const Config& config, off_t a, off_t b, off_t unconfirmed,
                 bool track = true);

}  // namespace hipfile::engine
