# SPDX-License-Identifier: MIT
"""load_safetensors_into: a checkpoint's tensors (or slices of them) read straight into tensors
the caller already has (a model's parameters, preallocated buffers), device or host memory,
through <hipfile-safetensors/fill.hpp>: no intermediate allocation, the reads in parallel with
the GIL released."""

import time
from collections.abc import Mapping

from . import _destination, _hipfile, _progress, _safetensors


def _allow(strict, value):
    return (not strict) if value is None else bool(value)


def _destinations(checkpoint, tensors):
    """(fill's destination tuples, the objects to keep alive) in the mapping's order."""
    header = {t[0]: t for t in checkpoint.tensors()}
    dests, keep = [], []
    for name, value in tensors.items():
        dest, owner = _destination.resolve(name, value, header.get(name))
        dests.append(dest)
        keep.append(owner)
    return dests, keep


def _parallel_reads(n):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"hipfile: parallel_reads must be an int >= 1, got {n!r}")
    return n


def _on_filled(on_filled):
    if on_filled is not None and not callable(on_filled):
        raise TypeError(f"hipfile: on_filled must be a callable(name) or None, not {type(on_filled).__name__}")
    return on_filled


def load_safetensors_into(path_or_index, tensors, *, strict=True, allow_missing=None, allow_unexpected=None,
                          parallel_reads=4, progress=None, on_filled=None):
    """Reads a checkpoint's tensors into tensors you already have.

    path_or_index: a .safetensors file, a Hugging Face index (.json) or a list of shard files.
    tensors: a mapping of checkpoint name to destination: a tensor (torch, CPU or CUDA; CuPy;
    NumPy; anything with __cuda_array_interface__, DLPack or the buffer protocol;
    hipfile.DeviceBuffer or hipfile.Tensor), C-contiguous and writable, or (tensor, slice) with
    slice a hipfile.Slice(dim, start, stop) (or a tuple) to read only that range of one
    dimension. The destination's dtype and shape must be the tensor's (or the slice's):
    hipfile.CheckpointError with code "dtype_mismatch" / "shape_mismatch" otherwise, raised
    before anything is read (a DeviceBuffer or bytes-like destination has only its size checked;
    uint8 / uint16 ones may take BF16, float8, F4 and F6 as their raw bits).
    strict: the mapping must name exactly the checkpoint's tensors: a name it lacks is a
    hipfile.MissingTensorError, a tensor no destination takes a CheckpointError with code
    "unexpected_tensor". allow_missing / allow_unexpected override either (default: not strict).
    parallel_reads: reads in flight at once. progress: True draws a progress line on stderr, a
    callable(done_bytes, total_bytes) is called as reads complete (from the reading threads, one
    call at a time; an exception it raises is raised when the reads are done). on_filled: a
    callable(name) called as each destination is complete, in the order the reads finish (from
    the reading threads, one call at a time, with the GIL held): what it names may be used from
    then on -- quantized, placed, its layer started -- while the rest is still being read; an
    exception it raises is raised when the reads are done.

    Returns {"bytes", "seconds", "gb_per_s", "devices", "missing", "unexpected", "stats"}: the
    bytes filled, the wall time of the call, their rate, the bytes placed on each device ({index:
    bytes}, -1 for host memory), the names skipped on either side, and the stats dict
    last_load_stats() then also returns (its "paths" say which of the library's paths read them).
    """
    _safetensors._require()
    if not isinstance(tensors, Mapping):
        raise TypeError(f"hipfile: tensors must be a mapping of str to destinations, not {type(tensors).__name__}")
    began = time.perf_counter()
    checkpoint = _hipfile._Checkpoint(path_or_index)
    opened = time.perf_counter()
    dests, keep = _destinations(checkpoint, tensors)
    filled = _on_filled(on_filled)
    callback, close = _progress.callback(progress)
    try:
        result = checkpoint.fill(dests, _allow(strict, allow_missing), _allow(strict, allow_unexpected),
                                 _parallel_reads(parallel_reads), callback, filled)
    finally:
        close()
    del keep  # the destinations' owners were held for the reads
    seconds = time.perf_counter() - began
    stats = result["stats"]
    stats["open"] = opened - began
    stats["total"] += stats["open"]
    _safetensors._last.stats = stats
    missing = set(result["missing"])
    nbytes = sum(d[2] for d in dests if d[0] not in missing)
    return {"bytes": nbytes, "seconds": seconds, "gb_per_s": nbytes / seconds / 1e9 if seconds > 0 else 0.0,
            "devices": result["devices"], "missing": result["missing"], "unexpected": result["unexpected"],
            "stats": stats}
