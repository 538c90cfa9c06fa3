# SPDX-License-Identifier: MIT
"""hipfile.safetensors: the reading and writing calls of the safetensors package, over hipfile.

Switch with one import -- ``from hipfile import safetensors`` (or ``import hipfile.safetensors
as safetensors``) -- and keep the calls: safe_open(filename, framework, device) with keys(),
offset_keys(), metadata(), get_tensor(), get_slice()[...]; load_file / save_file / load / save
as safetensors.torch has them. The same return types and the same errors (SafetensorError,
which hipfile.CheckpointError and MissingTensorError derive from; FileNotFoundError). Reads go
through hipfile's fill(): straight into the tensor returned, host or device, and a slice reads
only the rows that hold it.
"""

import errno
import math
import os
import tempfile

from . import _destination, _error, _hipfile
from ._safetensors import _require, save_safetensors
from ._tensor import DTYPES

SafetensorError = _error.SafetensorError

__all__ = ["SafetensorError", "load", "load_file", "safe_open", "save", "save_file"]

_FRAMEWORKS = {"pt": "pt", "torch": "pt", "pytorch": "pt", "np": "numpy", "numpy": "numpy"}


def _framework(name):
    kind = _FRAMEWORKS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise SafetensorError(f"framework {name} is invalid")
    return kind


def _device(device, framework):
    """"cpu", or a "cuda:N" string torch understands; SafetensorError as safetensors raises it."""
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    text = str(device)
    if text == "cpu":
        return text
    kind, _, number = text.partition(":")
    if kind not in ("cuda", "hip") or (number and not number.isdigit()):
        raise SafetensorError(f"device {device} is invalid")
    if framework != "pt":
        raise SafetensorError(f"Device {device} is not supported for framework numpy")
    return f"cuda:{number or 0}"


def _open(filename):
    _require()
    try:
        return _hipfile._Checkpoint(filename)
    except _error.Error as e:
        if e.errno == errno.ENOENT:
            raise FileNotFoundError(errno.ENOENT, f"No such file or directory: {os.fsdecode(filename)}") from e
        raise


def _empty(framework, device, dtype, shape):
    """An uninitialised tensor for a checkpoint tensor of dtype and shape: the framework's dtype,
    else its raw bits (uint16 for BF16 in NumPy, uint8 for the types a framework lacks; F4 / F6
    as bytes, shape (nbytes,), with shape here already in bytes)."""
    itemsize, _, _, typestr, torch_name = DTYPES[dtype]
    if framework == "numpy":
        import numpy

        return numpy.empty(shape, dtype=typestr)
    import torch

    kind = getattr(torch, torch_name, None) if torch_name else None
    if kind is None:
        kind = torch.uint8 if itemsize <= 1 else {2: torch.int16, 4: torch.int32, 8: torch.int64}[itemsize]
    return torch.empty(shape, dtype=kind, device=device)


def _storage_shape(dtype, shape, nbytes):
    return tuple(shape) if DTYPES[dtype][0] else (nbytes,)


def _own_destination(name, out, sl, dtype, shape):
    """fill()'s destination for a tensor _empty made: the checkpoint's dtype (the container may
    hold raw bits of it, e.g. int16 for U16 in a PyTorch without uint16), the shape checked
    where the dtype has whole elements."""
    ptr, nbytes, _, _, _ = _destination.memory_of(name, out)
    checked = tuple(shape) if DTYPES[dtype][0] else None
    return (name, ptr, nbytes, None if sl is None else tuple(sl), dtype, checked)


class safe_open:  # noqa: N801 -- the safetensors package's name
    """safe_open(filename, framework="pt", device="cpu"): a checkpoint's headers, its tensors
    read on demand. framework "pt" gives torch tensors, "numpy" / "np" NumPy arrays; device
    "cpu" host memory, "cuda:N" (or N) device memory (torch only). Use it as a context manager;
    after the block it is closed (SafetensorError "File is closed"). filename may also be a
    Hugging Face index (.json) or a list of shard files."""

    def __init__(self, filename, framework="pt", device="cpu"):
        self._framework = _framework(framework)
        self._device = _device(device, self._framework)
        self._filename = filename
        self._checkpoint = _open(filename)
        self._info = {t[0]: t for t in self._checkpoint.tensors()}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._checkpoint = None
        return False

    def _open_checkpoint(self):
        if self._checkpoint is None:
            raise SafetensorError("File is closed")
        return self._checkpoint

    def keys(self):
        """The tensor names, sorted (as safetensors returns them)."""
        self._open_checkpoint()
        return sorted(self._info)

    def offset_keys(self):
        """The tensor names in file order."""
        self._open_checkpoint()
        return list(self._info)

    def metadata(self):
        """The __metadata__ dict of str, or None when the file has none."""
        return self._open_checkpoint().metadata() or None

    def _tensor_info(self, name):
        checkpoint = self._open_checkpoint()
        info = self._info.get(name)
        if info is None:
            shards = checkpoint.shard_paths()
            raise _error.MissingTensorError(f"File does not contain tensor {name}", "no_such_tensor",
                                            shards[0] if len(shards) == 1 else "", name)
        return info

    def _read(self, name, sl, shape):
        """The tensor, or the slice sl (a Slice, or None) of it whose shape is shape."""
        checkpoint = self._open_checkpoint()
        _, dtype, _, _, _, nbytes = self._info[name]
        if sl is not None and DTYPES[dtype][0]:
            nbytes = DTYPES[dtype][0] * math.prod(shape)
        out = _empty(self._framework, self._device, dtype, _storage_shape(dtype, shape, nbytes))
        if nbytes:
            checkpoint.fill([_own_destination(name, out, sl, dtype, shape)], False, True, 1, None)
        return out

    def get_tensor(self, name):
        """The whole tensor named name, in the framework and on the device opened for."""
        info = self._tensor_info(name)
        return self._read(name, None, info[2])

    def get_slice(self, name):
        """A slice object of the tensor: get_shape(), get_dtype() and [...] indexing that reads
        only what the index selects."""
        return _SafeSlice(self, self._tensor_info(name))


class _SafeSlice:
    """What safe_open.get_slice returns: the tensor's shape and dtype, and indexing that reads
    only the range of the first dimension it narrows (the further indexing is applied to that)."""

    def __init__(self, owner, info):
        self._owner = owner
        self._info = info

    def get_shape(self):
        """The tensor's shape, a list of ints."""
        return list(self._info[2])

    def get_dtype(self):
        """The safetensors dtype name, e.g. "F32"."""
        return self._info[1]

    def __getitem__(self, index):
        name, shape = self._info[0], tuple(self._info[2])
        ranges = _ranges(index, shape)
        narrowed = [d for d, (start, stop, _) in enumerate(ranges) if (start, stop) != (0, shape[d]) or ranges[d][2]]
        if not narrowed:
            return self._owner._read(name, None, shape)
        dim = narrowed[0]
        start, stop, _ = ranges[dim]
        part = shape[:dim] + (stop - start,) + shape[dim + 1:]
        out = self._owner._read(name, _destination.Slice(dim, start, stop), part)
        return _further(out, ranges, dim, self._owner._framework)


def _bound(value, what):
    import operator

    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"slice {what} must be an int or None, not {type(value).__name__}") from None


def _slice_range(index, s, d, n, shape):
    if s.step not in (None, 1):
        raise SafetensorError(f"Error during slicing {index!r} with shape {list(shape)}: dimension {d}: "
                              f"only steps of 1 are supported, got {s.step}")
    start = 0 if s.start is None else _bound(s.start, "start")
    stop = n if s.stop is None else _bound(s.stop, "stop")
    if start < 0 or stop < 0 or start > stop or stop > n:
        raise SafetensorError(f"Error during slicing {index!r} with shape {list(shape)}: dimension {d}: "
                              f"range {start}:{stop} is not inside 0:{n}")
    return start, stop, False


def _int_range(index, i, d, n):
    position = i + n if i < 0 else i
    if not 0 <= position < n:
        raise SafetensorError(f"Invalid index {i} for dimension {d} of size {n}")
    return position, position + 1, True


def _expand(index, rank):
    items = index if isinstance(index, tuple) else (index,)
    ellipses = [k for k, it in enumerate(items) if it is Ellipsis]
    if len(ellipses) > 1:
        raise SafetensorError(f"Error during slicing {index!r}: more than one Ellipsis")
    if ellipses:
        k = ellipses[0]
        items = items[:k] + (slice(None),) * max(rank - len(items) + 1, 0) + items[k + 1:]
    if len(items) > rank:
        raise SafetensorError(f"Error during slicing {index!r}: {len(items)} indices for a tensor of {rank} dimensions")
    return items + (slice(None),) * (rank - len(items))


def _ranges(index, shape):
    """[(start, stop, is_int)] per dimension of what index (ints, slices of step 1, one
    Ellipsis) selects; SafetensorError where safetensors refuses it, TypeError for other keys."""
    out = []
    for d, (it, n) in enumerate(zip(_expand(index, len(shape)), shape)):
        if isinstance(it, slice):
            out.append(_slice_range(index, it, d, n, shape))
        elif isinstance(it, int) and not isinstance(it, bool):
            out.append(_int_range(index, it, d, n))
        else:
            raise TypeError(f"hipfile.safetensors: index {it!r} of type {type(it).__name__} is not supported: "
                            f"use ints, slices and Ellipsis")
    return out


def _further(out, ranges, dim, framework):
    """out (the read range of dimension dim) indexed by the rest of ranges, contiguous."""
    post = [slice(None)] * dim + [0 if ranges[dim][2] else slice(None)]
    post += [start if is_int else slice(start, stop) for start, stop, is_int in ranges[dim + 1:]]
    if all(p == slice(None) for p in post):
        return out
    picked = out[tuple(post)]
    if framework == "numpy":
        import numpy

        picked = numpy.asarray(picked)
        return picked if picked.flags.c_contiguous else picked.copy(order="C")
    return picked.contiguous()


def load_file(filename, device="cpu"):
    """dict[str, torch.Tensor] of every tensor, in file order, as safetensors.torch.load_file.

    Each tensor is a torch.empty of its own on the device (so each can be freed or replaced
    alone, as with safetensors) filled in one parallel fill() straight from the file -- also on
    a GPU, where the bytes go to the device with no host copy. (load_safetensors, one allocation
    per file, would keep a whole file's memory alive while any tensor of it lives.)"""
    f = safe_open(filename, framework="pt", device=device)
    out, dests = {}, []
    for name, dtype, shape, _, _, nbytes in f._checkpoint.tensors():
        out[name] = t = _empty("pt", f._device, dtype, _storage_shape(dtype, shape, nbytes))
        if nbytes:
            dests.append(_own_destination(name, t, None, dtype, shape))
    f._checkpoint.fill(dests, False, True, 4, None)  # out holds the tensors for the reads
    return out


def save_file(tensors, filename, metadata=None):
    """Writes a dict of str to tensor (torch, NumPy, CuPy, hipfile.Tensor; C-contiguous) as a
    .safetensors file, as safetensors.torch.save_file (through hipfile.save_safetensors)."""
    save_safetensors(tensors, filename, metadata)


def _temporary():
    fd, path = tempfile.mkstemp(suffix=".safetensors")
    os.close(fd)
    return path


def save(tensors, metadata=None):
    """The bytes of a .safetensors file holding tensors (safetensors.torch.save)."""
    path = _temporary()
    try:
        save_file(tensors, path, metadata)
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


def load(data):
    """dict[str, torch.Tensor] from the bytes of a .safetensors file (safetensors.torch.load)."""
    path = _temporary()
    try:
        with open(path, "wb") as f:
            f.write(data)
        return load_file(path)
    finally:
        os.unlink(path)
