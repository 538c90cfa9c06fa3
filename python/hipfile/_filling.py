# SPDX-License-Identifier: MIT
"""Reading load_model's jobs into the module's tensors with _Checkpoint.fill: straight into each
tensor where it has the checkpoint's dtype and is contiguous, else into a temporary of the
checkpoint's dtype that is then copied (and converted) into it, as load_state_dict's copy_ does."""

from dataclasses import dataclass


@dataclass
class FillCount:
    """What the fills of one load read: bytes from the files and the seconds they took."""

    bytes_read: int = 0
    seconds: float = 0.0
    fills: int = 0


def fill_jobs(checkpoint, jobs, progress, parallel_reads=4):
    """Fills every job's Slot tensor; returns a FillCount. The tensors the file can fill in place
    go in one fill (read in parallel). The others go in batches whose temporaries together are
    no larger than the largest one alone: converting never needs more than one tensor's worth of
    extra memory."""
    import torch

    count = FillCount()
    in_place = [j for j in jobs if _fills_in_place(j)]
    _fill(checkpoint, [(j, j.slot.tensor) for j in in_place], progress, parallel_reads, count)
    converted = [j for j in jobs if not _fills_in_place(j)]
    for batch in _batches(converted):
        temporaries = [(j, torch.empty(j.shape, dtype=j.torch_dtype, device=j.slot.tensor.device)) for j in batch]
        _fill(checkpoint, temporaries, progress, parallel_reads, count)
        with torch.no_grad():
            for job, temporary in temporaries:
                job.slot.tensor.copy_(temporary)
    return count


def _fills_in_place(job):
    tensor = job.slot.tensor
    return tensor.dtype == job.torch_dtype and tensor.is_contiguous()


def _batches(jobs):
    """jobs in order, cut where the next one would take a batch past the largest job's bytes."""
    budget = max((j.nbytes for j in jobs), default=0)
    batch, size = [], 0
    for job in jobs:
        if batch and size + job.nbytes > budget:
            yield batch
            batch, size = [], 0
        batch.append(job)
        size += job.nbytes
    if batch:
        yield batch


def _fill(checkpoint, pairs, progress, parallel_reads, count):
    """One _Checkpoint.fill of (job, tensor) pairs; a tensor of no bytes has nothing to read
    (and may have no address)."""
    destinations = [(j.name, t.data_ptr(), j.nbytes, j.part, j.file_dtype, j.shape) for j, t in pairs if j.nbytes]
    if not destinations:
        return
    report = progress.report if progress.enabled else None
    result = checkpoint.fill(destinations, allow_missing=False, allow_unexpected=True,
                             parallel_reads=parallel_reads, progress=report)
    progress.next_fill(sum(d[2] for d in destinations))
    count.bytes_read += result["stats"]["bytes_read"]
    count.seconds += result["stats"]["total"]
    count.fills += 1
