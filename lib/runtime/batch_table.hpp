// SPDX-License-Identifier: MIT
// The batches set up and not yet destroyed, by id (lib/api casts ids to and from
// hipFileBatchHandle_t). Apart from batch.hpp so that the driver, which destroys them all at its
// last close, does not include the batches that include it.
#pragma once

#include <cstdint>
#include <memory>

#include "io/status.hpp"

namespace hipfile::engine {

class Batch;

/// Numbers never handed out twice (not the object's address, which the allocator reuses at
/// once): an id kept past its destruction never reaches a later batch. Odd, so that no id is a
/// plausible pointer either.
using BatchId = std::uintptr_t;

/// A batch of up to `max_nr` operations (1 .. Batch::kMaxEntries).
Status batch_setup(BatchId& out, unsigned max_nr);
/// The batch behind an id, or null for one that is unknown or destroyed.
std::shared_ptr<Batch> batch_find(BatchId id);
/// Forgets the id, cancels what has not started and waits for what runs.
void batch_destroy(BatchId id);
/// At the last driver close: every batch is destroyed, so later calls with its id are refused
/// (hipFile 0.5 refuses them with InvalidValue).
void batch_destroy_all();

}  // namespace hipfile::engine
