# SPDX-License-Identifier: MIT
"""hipfile.Tensor: a typed view of device memory, what load_safetensors returns without PyTorch."""

import math

from . import _hipfile

# safetensors dtype -> (bytes per element, DLPack type code, DLPack bits, NumPy type string,
# PyTorch dtype name). BF16 and the float8 types have no NumPy type: to_host() gives their raw
# bits (uint16 / uint8); over DLPack, float8 is exported as uint8. The packed sub-byte types
# (F4, F6_*) are raw bytes everywhere: 0 bytes per element here, nbytes from the file.
DTYPES = {
    "F64": (8, 2, 64, "<f8", "float64"),
    "F32": (4, 2, 32, "<f4", "float32"),
    "F16": (2, 2, 16, "<f2", "float16"),
    "BF16": (2, 4, 16, "<u2", "bfloat16"),
    "F8_E4M3": (1, 1, 8, "|u1", "float8_e4m3fn"),
    "F8_E5M2": (1, 1, 8, "|u1", "float8_e5m2"),
    "F8_E8M0": (1, 1, 8, "|u1", "float8_e8m0fnu"),
    "F4": (0, 1, 8, "|u1", None),
    "F6_E2M3": (0, 1, 8, "|u1", None),
    "F6_E3M2": (0, 1, 8, "|u1", None),
    "C64": (8, 5, 64, "<c8", "complex64"),
    "I64": (8, 0, 64, "<i8", "int64"),
    "I32": (4, 0, 32, "<i4", "int32"),
    "I16": (2, 0, 16, "<i2", "int16"),
    "I8": (1, 0, 8, "|i1", "int8"),
    "U64": (8, 1, 64, "<u8", "uint64"),
    "U32": (4, 1, 32, "<u4", "uint32"),
    "U16": (2, 1, 16, "<u2", "uint16"),
    "U8": (1, 1, 8, "|u1", "uint8"),
    "BOOL": (1, 6, 8, "|b1", "bool"),
}


def _checked_shape(shape):
    """shape as a tuple of non-negative ints."""
    dims = tuple(shape)
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"hipfile.Tensor: shape dimensions must be ints, not {type(d).__name__}")
        if d < 0:
            raise ValueError(f"hipfile.Tensor: negative dimension {d} in shape {dims}")
    return dims


def _checked_nbytes(dtype, shape, nbytes):
    """The byte size of shape elements of dtype (Python ints: no wrap-around), checked
    against nbytes when that is given."""
    itemsize = DTYPES[dtype][0]
    if itemsize == 0:
        if nbytes is None:
            raise ValueError(f"hipfile.Tensor: {dtype} packs its elements: give nbytes")
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
            raise ValueError(f"hipfile.Tensor: nbytes must be an int >= 0, got {nbytes!r}")
        return nbytes
    size = math.prod(shape) * itemsize
    if nbytes is not None and nbytes != size:
        raise ValueError(f"hipfile.Tensor: shape {shape} of {dtype} holds {size} bytes, not {nbytes}")
    return size


class Tensor:
    """A tensor in device memory: dtype (a safetensors name such as "BF16"), shape, nbytes.

    It shares one device allocation with the other tensors loaded from the same file; the
    allocation is freed when the last of them (and of the DLPack views made from them) is gone.
    Exchange it with any framework through DLPack (cupy.from_dlpack, jax.dlpack, ...) or copy it
    to the host with to_host(). Build one over a hipfile.DeviceBuffer to hand device memory to
    save_safetensors: Tensor(buffer, offset, dtype, shape).
    """

    # A dict: its values are the attributes' docstrings (help(hipfile.Tensor)).
    __slots__ = {
        "_buffer": "The DeviceBuffer that holds the memory (shared with the other tensors of its file).",
        "_offset": "Byte offset of the tensor in _buffer.",
        "dtype": 'The safetensors dtype name, such as "BF16".',
        "shape": "The shape, a tuple of ints.",
        "nbytes": "The size in bytes.",
    }

    def __init__(self, buffer, offset, dtype, shape, nbytes=None):
        """A view of `shape` elements of `dtype` at byte `offset` of `buffer` (a DeviceBuffer).

        nbytes, when given, must equal the shape's elements times the dtype's size; the packed
        sub-byte dtypes (F4, F6_*) have no per-element size and need it. The bytes must lie
        inside the buffer."""
        if dtype not in DTYPES:
            raise ValueError(f"hipfile.Tensor: unknown dtype {dtype!r}")
        if not isinstance(buffer, _hipfile.DeviceBuffer):
            raise TypeError(f"hipfile.Tensor: buffer must be a hipfile.DeviceBuffer, not {type(buffer).__name__}")
        self.shape = _checked_shape(shape)
        self.nbytes = _checked_nbytes(dtype, self.shape, nbytes)
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise TypeError(f"hipfile.Tensor: offset must be an int, not {type(offset).__name__}")
        if offset < 0:
            raise ValueError(f"hipfile.Tensor: offset must be >= 0, got {offset}")
        if offset + self.nbytes > buffer.nbytes:
            raise ValueError(f"hipfile.Tensor: {self.nbytes} bytes at offset {offset} run past the buffer's "
                             f"{buffer.nbytes} bytes")
        self._buffer = buffer
        self._offset = offset
        self.dtype = dtype

    @property
    def device(self):
        """The HIP device index."""
        return self._buffer.device

    @property
    def data_ptr(self):
        """The device address of the first element (an int; 0 for an empty tensor)."""
        return self._buffer.ptr + self._offset if self.nbytes else 0

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        itemsize, code, bits, _, _ = DTYPES[self.dtype]
        shape = list(self.shape) if itemsize else [self.nbytes]  # packed types: raw bytes
        return _hipfile._export_view(self._buffer, self._offset, code, bits, shape, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return (_hipfile.dlpack_device_type, self._buffer.device)

    def to_bytes(self):
        """The tensor's bytes, copied to the host."""
        return self._buffer.copy_to_host(offset=self._offset, size=self.nbytes)

    def to_host(self):
        """A NumPy array with the tensor's values (BF16 and float8 as their raw bits)."""
        import numpy

        itemsize, _, _, typestr, _ = DTYPES[self.dtype]
        raw = numpy.frombuffer(self.to_bytes(), dtype=typestr)
        return raw.reshape(self.shape) if itemsize else raw

    def __repr__(self):
        return f"<hipfile.Tensor {self.dtype} {list(self.shape)} on device {self.device}>"
