# SPDX-License-Identifier: MIT
"""load_safetensors / save_safetensors over <hipfile-safetensors/safetensors.hpp>.

The C++ loader validates the headers, allocates one device buffer per file and reads the
tensors in parallel with the GIL released; here its allocations become DeviceBuffer objects
and the tensors views of them: torch tensors through DLPack when PyTorch is importable (the
allocation is freed when the last tensor of its file is), hipfile.Tensor otherwise.
"""

import threading
from collections.abc import Mapping

from . import _hipfile
from ._tensor import DTYPES, Tensor


_last = threading.local()


def last_load_stats():
    """Where the calling thread's last load_safetensors spent its time, or None before one.

    A dict of seconds, in order: "open" (the files and their headers), "plan", "allocate"
    (device memory), "register" (the files; an implicit driver open included), "read", "finish";
    "total" (the whole call into the library, which they add up to), "bytes_read", "reads", and
    "library": {phase: {"count", "seconds", "first_seconds"}}, what the library's phases
    (hipfile.stats()["phases"]) took during the load (first_seconds where the phase first ran
    in it): "driver_open" inside "register"; inside "read", as time
    summed over the engine's threads, "engine_start", "thread_start", "pinned_staging",
    "path_trials", "mapping"; and "paths": {"engine", "host", "cufile", "amd": bytes the
    library read on that path during the load} (its statistics, so 0 at level 0). See
    doc/safetensors.md, "Where a load's time goes".
    """
    return getattr(_last, "stats", None)


def _require():
    if not hasattr(_hipfile, "_load_safetensors"):
        raise NotImplementedError("hipfile was built without nlohmann-json: no safetensors support")


def _device_index(device, torch=None):
    """The device index of "cuda:N", "hip:N", an int or a torch.device; without an index, the
    current device: torch's when torch (a module that can hold device memory) is in use, else
    the calling thread's HIP current device."""
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    kind, index = getattr(device, "type", None), getattr(device, "index", None)  # torch.device
    if kind is None:
        kind, _, number = str(device).partition(":")
        if number and not number.isdigit():
            kind = None
        index = int(number) if number.isdigit() else None
    if kind not in ("cuda", "hip", "gpu"):
        raise ValueError(f"hipfile: load_safetensors loads into device memory; device {device!r} is not "
                         f"'cuda:N', 'hip:N', an int or a torch.device")
    if index is not None:
        return index
    return torch.cuda.current_device() if torch is not None else _hipfile._current_device()


def _existing_device(index):
    """index, when a device has it; else ValueError, before anything is opened or read (the
    library takes -1 as the current device, and an index past a C int cannot reach it)."""
    count = _hipfile.device_count()
    if not 0 <= index < count:
        raise ValueError(f"hipfile: device {index} does not exist ({count} found)")
    return index


def _import_torch(as_torch):
    """The torch module when as_torch allows it and it imports, else None (ImportError when
    as_torch=True)."""
    if as_torch is False:
        return None
    try:
        import torch
    except ImportError:
        if as_torch:
            raise
        return None
    return torch


def _torch_for(torch, as_torch, device):
    """torch when it can hold memory on the device index `device`, else None; as_torch=True
    refuses (before anything is read) instead of failing inside torch after the load."""
    if torch is None:
        return None
    available = bool(torch.cuda.is_available())
    if available and device < torch.cuda.device_count():
        return torch
    if as_torch:
        why = "torch.cuda.is_available() is False" if not available else \
            f"torch.cuda.device_count() is {torch.cuda.device_count()}"
        raise RuntimeError(f"hipfile: as_torch=True, but PyTorch {torch.__version__} cannot hold memory on device "
                           f"{device} ({why}): pass as_torch=False for hipfile.Tensor, or install a ROCm or CUDA "
                           f"build of PyTorch")
    return None


def _names_list(names):
    if names is None:
        return None
    if isinstance(names, str):
        return [names]
    try:
        return list(names)
    except TypeError:
        raise TypeError(f"hipfile: names must be an iterable of str, not {type(names).__name__}") from None


def load_safetensors(path_or_index, device="cuda:0", names=None, as_torch=None):
    """Loads a checkpoint into device memory.

    path_or_index: a .safetensors file, or a Hugging Face model.safetensors.index.json whose
    weight_map names the shard of every tensor (shards are read in parallel); str, bytes or
    os.PathLike.
    device: "cuda:N", "hip:N", an int, or a torch.device; "cuda" without an index is the
    current device (torch.cuda.current_device() when PyTorch is used, else HIP's).
    names: the tensors to load (default: all); a name not in the checkpoint raises
    hipfile.MissingTensorError (a KeyError).

    as_torch: None (the default) gives torch tensors when PyTorch is importable and can hold
    memory on the device (torch.cuda.is_available(), the index below its device count), else
    hipfile.Tensor; False always gives hipfile.Tensor; True requires such a PyTorch (ImportError
    without PyTorch, RuntimeError, before anything is read, when it has no such device: a
    CPU-only build).

    Returns dict[str, torch.Tensor] when PyTorch is used, else dict[str, hipfile.Tensor],
    in checkpoint order. The tensors of one file share one device allocation, freed when the
    last of them is. A malformed checkpoint raises hipfile.CheckpointError (a ValueError)
    naming the file and tensor; a failed read raises hipfile.Error.
    """
    _require()
    torch = _import_torch(as_torch)
    usable = torch if torch is not None and torch.cuda.is_available() else None
    index = _existing_device(_device_index(device, usable))
    torch = _torch_for(torch, as_torch, index)
    names = _names_list(names)
    buffers, tensors, _last.stats = _hipfile._load_safetensors(path_or_index, index, names)
    if torch is None:
        empty = None  # one 0-byte buffer for the tensors of zero bytes
        out = {}
        for name, dtype, shape, alloc, offset, nbytes in tensors:
            if alloc is None:
                empty = empty or _hipfile.DeviceBuffer(0, index)
            out[name] = Tensor(buffers[alloc] if alloc is not None else empty, offset, dtype, shape, nbytes)
        return out
    return _as_torch(torch, buffers, tensors, index)


def _as_torch(torch, buffers, tensors, index):
    flats = [torch.from_dlpack(b) for b in buffers]
    out = {}
    for name, dtype, shape, alloc, offset, nbytes in tensors:
        torch_name = DTYPES[dtype][4]
        kind = getattr(torch, torch_name) if torch_name else torch.uint8
        shape = shape if torch_name else (nbytes,)
        if alloc is None:
            out[name] = torch.empty(shape, dtype=kind, device=torch.device("cuda", index))
            continue
        raw = flats[alloc][offset:offset + nbytes]
        if offset % max(DTYPES[dtype][0], 1):
            raw = raw.clone()  # a file that misaligns a tensor: an aligned copy, as torch needs
        out[name] = raw.view(kind).reshape(shape)
    return out


_NUMPY_DTYPES = ("F64", "F32", "F16", "C64", "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8", "BOOL")


def _typestr_dtype(typestr):
    """The safetensors dtype of a NumPy / array-interface typestr ("<f4" is F32), or None; BF16
    and float8 have no typestr of their own, so "<u2" is U16."""
    for key in _NUMPY_DTYPES:
        if DTYPES[key][3] == typestr:
            return key
    return None


def _describe(name, value):
    """(safetensors dtype, shape) of a tensor-like value."""
    if isinstance(value, Tensor):
        return value.dtype, value.shape
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is None or shape is None:
        raise TypeError(f"hipfile: tensor {name!r}: a {type(value).__name__} has no dtype and shape")
    text = str(dtype)
    if text.startswith("torch."):
        for key, info in DTYPES.items():
            if info[4] == text[len("torch."):]:
                return key, tuple(shape)
    else:  # NumPy, CuPy: a numpy.dtype
        key = _typestr_dtype(getattr(dtype, "str", None))
        if key is not None:
            return key, tuple(shape)
    raise ValueError(f"hipfile: tensor {name!r}: dtype {text} has no safetensors equivalent")


def _torch_bytes(name, t):
    """A torch tensor's bytes as a uint8 tensor: bf16 and float8 have no __cuda_array_interface__
    typestr and not every DLPack exports them; the bytes are what the file holds anyway."""
    if not t.is_contiguous():
        raise ValueError(f"hipfile: tensor {name!r}: the Tensor buffer is not C-contiguous; pass a contiguous "
                         f"one (tensor.contiguous())")
    import torch

    return t.reshape(-1).view(torch.uint8)


class _Bytes:
    """A hipfile.Tensor's bytes as a uint8 DLPack export (its dtype may have no DLPack code)."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        t = self._tensor
        return _hipfile._export_view(t._buffer, t._offset, 1, 8, [t.nbytes], max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()


def save_safetensors(tensors, path, metadata=None):
    """Writes tensors (a dict of name to torch tensor, CuPy/NumPy array or hipfile.Tensor, in
    device or host memory, C-contiguous) to path as a .safetensors file readable by the
    safetensors package. metadata: a dict of str to str stored as __metadata__. The file is
    written under a temporary name, synced to disk and renamed when complete (so neither a
    failure nor a power loss leaves a partial file under path); an existing file's permission
    bits are kept. path: str, bytes or os.PathLike."""
    _require()
    if not isinstance(tensors, Mapping):
        raise TypeError(f"hipfile: tensors must be a mapping of str to tensors, not {type(tensors).__name__}")
    if metadata is not None and not (isinstance(metadata, dict)
                                     and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise TypeError("hipfile: metadata must be a dict of str to str")
    items = []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"hipfile: tensor names are str, not {type(name).__name__}")
        dtype, shape = _describe(name, value)
        if isinstance(value, Tensor):
            value = _Bytes(value) if value.nbytes else b""
        elif 0 in tuple(shape):
            value = b""  # an empty tensor: no bytes, and frameworks' empty exports may be odd
        elif str(getattr(value, "dtype", "")).startswith("torch."):
            value = _torch_bytes(name, value)
        items.append((name, dtype, list(shape), value))
    _hipfile._save_safetensors(path, items, metadata or {})
