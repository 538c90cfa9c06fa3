# SPDX-License-Identifier: MIT
"""Destinations of load_safetensors_into: a tensor, or (tensor, slice), resolved to what
_Checkpoint.fill takes: (name, address, nbytes, slice, dtype, shape).

Addresses are raw because a torch CPU tensor and a bf16 tensor have no buffer protocol; the
objects that own them are returned alongside and must stay referenced for the whole fill.
"""

from typing import NamedTuple

from . import _hipfile
from ._safetensors import _describe, _typestr_dtype
from ._tensor import DTYPES, Tensor


class Slice(NamedTuple):
    """Elements [start, stop) of dimension dim of a checkpoint tensor; every other dimension
    whole. Pair it with a destination of the slice's shape: {"w": (tensor, Slice(0, 0, 512))}."""

    dim: int
    start: int
    stop: int


def _slice_of(name, value):
    """A Slice from a Slice or a (dim, start, stop) tuple of non-negative ints."""
    if not isinstance(value, tuple) or len(value) != 3:
        raise TypeError(f"hipfile: tensor {name!r}: a slice is hipfile.Slice(dim, start, stop) or a tuple of 3 ints, "
                        f"not {value!r}")
    for v in value:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"hipfile: tensor {name!r}: a slice holds non-negative ints, got {tuple(value)!r}")
    return Slice(*value)


def _is_torch(obj):
    return type(obj).__module__.partition(".")[0] == "torch" and hasattr(obj, "data_ptr")


def _torch_memory(name, t):
    if not t.is_contiguous():
        raise ValueError(f"hipfile: tensor {name!r}: the Tensor destination is not C-contiguous; pass a contiguous "
                         f"one (tensor.contiguous() makes a copy, which would not be the tensor you hold)")
    dtype, shape = _describe(name, t)
    return t.data_ptr(), t.numel() * t.element_size(), dtype, shape, t


def _buffer_memory(name, obj):
    """Anything _hipfile resolves (DLPack, __cuda_array_interface__, DeviceBuffer, buffer
    protocol), with its dtype and shape where it says them."""
    ptr, nbytes, _, owner = _hipfile._buffer_address(obj)
    dtype = shape = None
    if isinstance(obj, _hipfile.DeviceBuffer):
        pass  # raw bytes: only the size is checked
    elif getattr(obj, "dtype", None) is not None and getattr(obj, "shape", None) is not None:
        dtype, shape = _describe(name, obj)
    elif hasattr(obj, "__cuda_array_interface__"):
        cai = obj.__cuda_array_interface__
        dtype, shape = _typestr_dtype(cai["typestr"]), tuple(cai["shape"])
    return ptr, nbytes, dtype, shape, (obj, owner)


def memory_of(name, obj):
    """(address, nbytes, dtype or None, shape or None, what to keep alive) of a destination."""
    if isinstance(obj, Tensor):
        return obj.data_ptr, obj.nbytes, obj.dtype, obj.shape, obj
    if _is_torch(obj):
        return _torch_memory(name, obj)
    return _buffer_memory(name, obj)


def _dtype_for(dest, header):
    """The dtype fill() is to check: the destination's, or the header's when the destination is
    a uint8 / uint16 container of the raw bits of a dtype NumPy and old PyTorch lack (BF16,
    float8, F4, F6) -- the same bytes either way."""
    if dest is None or header is None or dest == header:
        return dest
    if dest in ("U8", "U16") and DTYPES[dest][3] == DTYPES[header][3]:
        return header
    return dest


def resolve(name, value, header):
    """(destination tuple for _Checkpoint.fill, what to keep alive). header is the checkpoint's
    (name, dtype, shape, shard, offset, nbytes) of the tensor, or None when it has none."""
    if not isinstance(name, str):
        raise TypeError(f"hipfile: tensor names are str, not {type(name).__name__}")
    sl = None
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        if len(value) != 2:
            raise TypeError(f"hipfile: tensor {name!r}: a destination is a tensor or (tensor, slice), "
                            f"not a tuple of {len(value)}")
        value, sl = value[0], (None if value[1] is None else _slice_of(name, value[1]))
    ptr, nbytes, dtype, shape, keep = memory_of(name, value)
    header_dtype = header[1] if header is not None else None
    dtype = _dtype_for(dtype, header_dtype)
    if header_dtype is not None and DTYPES[header_dtype][0] == 0:
        shape = None  # packed F4 / F6: a byte container's shape is not the elements'
    dest = (name, ptr, nbytes, None if sl is None else tuple(sl), dtype,
            None if shape is None else tuple(int(d) for d in shape))
    return dest, keep
