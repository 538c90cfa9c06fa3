# SPDX-License-Identifier: MIT
"""hipfile.torch.load_model: a safetensors checkpoint straight into an existing torch.nn.Module,
with Module.load_state_dict's semantics, on one rank or many (tensor-parallel slices, reads
shared between ranks). See doc/python.md, "Filling a model"."""

import time
from collections import namedtuple

import torch

from . import _hipfile
from ._checkpoint_files import checkpoint_source
from ._distributed import assign_readers, broadcast_all, sharing_group, tensor_parallel_ranks
from ._filling import fill_jobs
from ._load_plan import Entry, plan_load, state_dict_error
from ._module_state import meta_buffers_outside_state, module_slots
from ._load_progress import Progress
from ._tp_plan import check_plan

__all__ = ["LoadResult", "load_model"]


class LoadResult(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns (missing_keys, unexpected_keys; a tuple of the two), and
    `stats`: what this rank's load did (bytes, seconds, gb_per_s, devices, bytes_read, ...)."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def load_model(module, path_or_dir, *, device=None, strict=True, tp_plan=None, rank=None, world_size=None,
               shared_read=False, group=None, progress=None):
    """Fills module's parameters and persistent buffers from a .safetensors file, a
    model.safetensors.index.json or a model folder, as module.load_state_dict would, reading
    straight into the module's tensors.

    A tensor on the meta device is made on `device` (default: the current CUDA device where
    torch.cuda.is_available(), else "cpu") with its dtype, filled and put in the module; any
    other is filled where it is. Returns a LoadResult. See doc/python.md, "Filling a model"."""
    started = time.perf_counter()
    plan = check_plan(tp_plan)
    rank, world_size = tensor_parallel_ranks(rank, world_size, group)
    checkpoint = _hipfile._Checkpoint(checkpoint_source(path_or_dir))
    entries = {t[0]: Entry(*t) for t in checkpoint.tensors()}
    slots = module_slots(module)
    jobs, missing, unexpected, errors = plan_load(slots, entries, plan, rank, world_size)
    error = state_dict_error(module, missing, unexpected, errors, strict)
    if error is not None:
        raise error
    _refuse_meta_buffers(module)
    reads, shared, readers, share = _share(jobs, shared_read, group)
    progress = Progress(progress, sum(j.nbytes for j in reads))
    _materialize(jobs, _target_device(device))  # after every check: a refused call leaves the module as it was
    try:
        count = fill_jobs(checkpoint, reads, progress)
    finally:
        progress.close()
    if shared:
        broadcast_all([j.slot.tensor.detach() for j in shared], readers, share[2], group)
    result = LoadResult(missing, unexpected)
    result.stats = _stats(jobs, reads, count, time.perf_counter() - started, rank, world_size)
    return result


def _refuse_meta_buffers(module):
    names = meta_buffers_outside_state(module)
    if names:
        raise RuntimeError(f"hipfile: buffers on the meta device that no checkpoint holds (not in the state_dict): "
                           f"{', '.join(names)}; build the model under accelerate.init_empty_weights(), which "
                           f"keeps buffers real, or materialize them before load_model")


def _target_device(device):
    if device is not None:
        return torch.device(device)
    if torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _materialize(jobs, device):
    """Gives each job whose tensor is on the meta device an empty one of its dtype on device, in
    the module, so that the fill has somewhere to go."""
    for job in jobs:
        if job.slot.tensor.is_meta:
            job.slot.assign(torch.empty(job.shape, dtype=job.slot.tensor.dtype, device=device))


def _share(jobs, shared_read, group):
    """(jobs this rank reads, jobs shared by broadcast, the reader of each, the sharing group's
    (rank, world_size, global ranks)). Shared: whole tensors of some bytes in contiguous
    tensors, each read by one rank; a slice is each rank's own, so each rank reads it."""
    if not shared_read:
        return jobs, [], [], None
    share = sharing_group(group)
    rank, world_size, _ = share
    if world_size == 1:
        return jobs, [], [], share
    shared = [j for j in jobs if _shareable(j)]
    own = [j for j in jobs if not _shareable(j)]
    readers = assign_readers([j.nbytes for j in shared], world_size)
    reads = own + [j for j, r in zip(shared, readers) if r == rank]
    return reads, shared, readers, share


def _shareable(job):
    return job.part is None and job.nbytes > 0 and job.slot.tensor.is_contiguous()


def _stats(jobs, reads, count, seconds, rank, world_size):
    """This rank's summary: bytes put in the module (of the checkpoint's dtypes), per device."""
    loaded = sum(j.nbytes for j in jobs)
    devices = {}
    for job in jobs:
        key = str(job.slot.tensor.device)
        devices[key] = devices.get(key, 0) + job.nbytes
    return {
        "bytes": loaded,
        "seconds": seconds,
        "gb_per_s": loaded / seconds / 1e9 if seconds > 0 else 0.0,
        "devices": devices,
        "bytes_read": count.bytes_read,
        "read_seconds": count.seconds,
        "share_bytes": sum(j.nbytes for j in reads),
        "bytes_received": loaded - sum(j.nbytes for j in reads),
        "fills": count.fills,
        "rank": rank,
        "world_size": world_size,
    }
