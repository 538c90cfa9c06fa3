# SPDX-License-Identifier: MIT
"""load_safetensors / save_safetensors: checkpoints between files and device memory.

Loading reads each file's tensors into one device allocation per file with as few reads as
the layout allows (one, for a file whose tensors are aligned to their element size, as
safetensors writes them), all files in flight at once through File.pread.
"""

import errno as _errno
import json
import math
import os

from . import _hipfile
from ._error import Error
from ._tensor import DTYPES, Tensor

HEADER_LIMIT = 100_000_000  # the format's limit on the JSON header
_RUN_ALIGN = 256            # where a new contiguous run starts in device memory


class _Entry:
    __slots__ = ("name", "dtype", "shape", "begin", "end", "dst")

    def __init__(self, name, dtype, shape, begin, end):
        self.name, self.dtype, self.shape, self.begin, self.end = name, dtype, shape, begin, end
        self.dst = 0


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _bad(path, what):
    return ValueError(f"{path}: {what}")


def _parse_entry(path, name, info, data_len):
    if not isinstance(info, dict):
        raise _bad(path, f"tensor {name!r}: entry is not an object")
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if dtype not in DTYPES:
        raise _bad(path, f"tensor {name!r}: unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise _bad(path, f"tensor {name!r}: shape {shape!r} is not a list of non-negative ints")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int for o in offsets) or not 0 <= offsets[0] <= offsets[1] <= data_len):
        raise _bad(path, f"tensor {name!r}: data_offsets {offsets!r} are outside the data section of {data_len} bytes")
    need = math.prod(shape) * DTYPES[dtype][0]
    if offsets[1] - offsets[0] != need:
        raise _bad(path, f"tensor {name!r}: data_offsets {offsets} hold {offsets[1] - offsets[0]} bytes, "
                         f"shape {shape} of {dtype} needs {need}")
    return _Entry(name, dtype, tuple(shape), offsets[0], offsets[1])


def read_header(path):
    """Parses a .safetensors header: (entries in file order, metadata, data start, file size)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        if size < 8:
            raise _bad(path, f"{size} bytes is too short for a safetensors file (it starts with an 8-byte header length)")
        n = int.from_bytes(os.pread(fd, 8, 0), "little")
        if n > HEADER_LIMIT:
            raise _bad(path, f"header length {n} is above the format's limit of {HEADER_LIMIT} bytes")
        if 8 + n > size:
            raise _bad(path, f"header length {n} runs past the end of the file ({size} bytes)")
        raw = os.pread(fd, n, 8)
    finally:
        os.close(fd)
    try:
        header = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError) as e:
        raise _bad(path, f"the header is not valid UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise _bad(path, "the header is not a JSON object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())):
        raise _bad(path, "__metadata__ is not an object of strings")
    data_len = size - 8 - n
    entries = [_parse_entry(path, name, info, data_len) for name, info in header.items()]
    _check_layout(path, sorted(entries, key=lambda e: (e.begin, e.end)), data_len)
    return entries, metadata or {}, 8 + n, size


def _check_layout(path, ordered, data_len):
    cursor, previous = 0, None
    for e in ordered:
        if e.begin != cursor:
            what = "overlaps" if e.begin < cursor else "leaves a gap after"
            raise _bad(path, f"tensor {e.name!r} at data_offsets [{e.begin}, {e.end}] {what} "
                             f"{'the start' if previous is None else repr(previous.name)}")
        cursor, previous = e.end, e
    if cursor != data_len:
        raise _bad(path, f"the tensors end at byte {cursor} of a data section of {data_len} bytes")


def _device_index(device):
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    kind, index = getattr(device, "type", None), getattr(device, "index", None)  # torch.device
    if kind is None:
        text = str(device)
        kind, _, number = text.partition(":")
        if number and not number.isdigit():
            raise ValueError(f"hipfile: device {device!r} is not 'cuda:N', 'hip:N' or an int")
        index = int(number) if number else None
    if kind not in ("cuda", "hip", "gpu"):
        raise ValueError(f"hipfile: load_safetensors loads into device memory; device {device!r} is not "
                         f"'cuda:N', 'hip:N' or an int")
    return 0 if index is None else index


def _shards(path):
    """[(shard path, names wanted from it or None for all)] for a file or an index."""
    path = os.fspath(path)
    if not path.endswith(".json"):
        return [(path, None)]
    with open(path, "rb") as f:
        try:
            index = json.loads(f.read().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise _bad(path, f"the index is not valid UTF-8 JSON: {e}") from None
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict):
        raise _bad(path, "the index has no weight_map object")
    base = os.path.dirname(path)
    shards = {}
    for name, shard in weight_map.items():
        shards.setdefault(os.path.join(base, shard), []).append(name)
    return list(shards.items())


def _layout(entries):
    """Places the entries in device memory: runs of file-contiguous entries that keep every
    tensor aligned to its element size share one read. Returns (bytes, [(src, dst, size)])."""
    runs, cursor = [], 0
    for e in sorted(entries, key=lambda e: e.begin):
        itemsize = DTYPES[e.dtype][0]
        if runs:
            src, dst, size = runs[-1]
            if e.begin == src + size and (dst + size) % itemsize == 0:
                e.dst = dst + size
                runs[-1] = (src, dst, size + e.end - e.begin)
                cursor = e.dst + e.end - e.begin
                continue
        e.dst = -(-cursor // _RUN_ALIGN) * _RUN_ALIGN
        runs.append((e.begin, e.dst, e.end - e.begin))
        cursor = e.dst + e.end - e.begin
    return cursor, [r for r in runs if r[2] > 0]


class _ShardLoad:
    def __init__(self, path, wanted, device):
        self.path = path
        entries, _, self.data_start, _ = read_header(path)
        if wanted is not None:
            by_name = {e.name: e for e in entries}
            missing = [n for n in wanted if n not in by_name]
            if missing:
                raise _bad(path, f"the shard has no tensor {missing[0]!r}")
            entries = [by_name[n] for n in wanted]
        self.entries = entries
        nbytes, self.runs = _layout(entries)
        self.buffer = _hipfile.DeviceBuffer(nbytes, device)

    def start(self):
        self.file = _hipfile.File(self.path, "r")
        self.futures = [(self.file.pread(self.buffer, size, self.data_start + src, dst), size, src)
                        for src, dst, size in self.runs]

    def finish(self):
        try:
            for future, size, src in self.futures:
                got = future.get()
                if got != size:
                    raise Error(f"read of {size} bytes at offset {self.data_start + src} from '{self.path}': "
                                f"the file ended after {got} bytes (it changed after its header was read)",
                                _errno.ENODATA, None, 0, self.path)
        finally:
            self.file.close()


def load_safetensors(path_or_index, device="cuda:0", names=None):
    """Loads a checkpoint into device memory.

    path_or_index: a .safetensors file, or a Hugging Face model.safetensors.index.json whose
    weight_map names the shard of every tensor (shards are read in parallel).
    device: "cuda:N", "hip:N", an int, or a torch.device.
    names: the tensors to load (default: all).

    Returns dict[str, torch.Tensor] when PyTorch is importable, else dict[str, hipfile.Tensor].
    The tensors of one file share one device allocation, freed when the last of them is.
    """
    index = _device_index(device)
    shards = _shards(path_or_index)
    if names is not None:
        wanted_all = list(names)
        wanted = set(wanted_all)
        known = set()
        picked = []
        for path, shard_names in shards:
            if shard_names is None:
                all_names = [e.name for e in read_header(path)[0]]
                shard_names = all_names
            chosen = [n for n in shard_names if n in wanted]
            known.update(shard_names)
            if chosen:
                picked.append((path, chosen))
        missing = [n for n in wanted_all if n not in known]
        if missing:
            raise KeyError(f"hipfile: {os.fspath(path_or_index)} has no tensor {missing[0]!r}")
        shards = picked
    loads = [_ShardLoad(path, wanted, index) for path, wanted in shards]
    for load in loads:
        load.start()
    for load in loads:
        load.finish()
    return _wrap(loads, index)


def _wrap(loads, index):
    try:
        import torch
    except ImportError:
        torch = None
    out = {}
    for load in loads:
        if torch is not None:
            flat = torch.from_dlpack(load.buffer)
            for e in load.entries:
                dtype = getattr(torch, DTYPES[e.dtype][4])
                out[e.name] = flat[e.dst:e.dst + e.end - e.begin].view(dtype).reshape(e.shape)
        else:
            for e in load.entries:
                out[e.name] = Tensor(load.buffer, e.dst, e.dtype, e.shape)
    return out


def _describe(name, value):
    """(safetensors dtype, shape) of a tensor-like value."""
    if isinstance(value, Tensor):
        return value.dtype, value.shape
    dtype, shape = getattr(value, "dtype", None), getattr(value, "shape", None)
    if dtype is None or shape is None:
        raise TypeError(f"hipfile: tensor {name!r}: a {type(value).__name__} has no dtype and shape")
    text = str(dtype)
    if text.startswith("torch."):
        wanted = text[len("torch."):]
        for key, info in DTYPES.items():
            if info[4] == wanted:
                return key, tuple(shape)
        raise ValueError(f"hipfile: tensor {name!r}: dtype {text} has no safetensors equivalent")
    typestr = getattr(dtype, "str", None)
    for key, info in DTYPES.items():
        if info[3] == typestr and key not in ("BF16", "F8_E4M3", "F8_E5M2"):
            return key, tuple(shape)
    raise ValueError(f"hipfile: tensor {name!r}: dtype {text} has no safetensors equivalent")


def _header(tensors, metadata):
    items = []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"hipfile: tensor names are str, not {type(name).__name__}")
        dtype, shape = _describe(name, value)
        items.append((name, dtype, shape, value))
    # As safetensors orders them: larger elements first, so every tensor stays aligned.
    items.sort(key=lambda t: (-DTYPES[t[1]][0], t[0]))
    header, offset, placed = {}, 0, []
    if metadata is not None:
        if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("hipfile: metadata must be a dict of str to str")
        header["__metadata__"] = metadata
    for name, dtype, shape, value in items:
        nbytes = math.prod(shape) * DTYPES[dtype][0]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        placed.append((name, value, offset, nbytes))
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return len(text).to_bytes(8, "little") + text, placed


def save_safetensors(tensors, path, metadata=None):
    """Writes tensors (a dict of name to torch tensor, CuPy/NumPy array or hipfile.Tensor, on a
    device or on the host, C-contiguous) to path as a .safetensors file, all tensors in flight at
    once. metadata: a dict of str to str stored as __metadata__."""
    head, placed = _header(tensors, metadata)
    with _hipfile.File(path, "w") as f:
        if f.write(head, file_offset=0) != len(head):
            raise Error(f"write of {len(head)} bytes at offset 0 to '{path}': short write", _errno.EIO, None, 0, os.fspath(path))
        futures = []
        for name, value, offset, nbytes in placed:
            if nbytes:
                source = value if not isinstance(value, Tensor) else _TensorBytes(value)
                futures.append((name, nbytes, f.pwrite(source, nbytes, len(head) + offset)))
        for name, nbytes, future in futures:
            got = future.get()
            if got != nbytes:
                raise Error(f"write of {nbytes} bytes of tensor {name!r} to '{path}': short write of {got}",
                            _errno.EIO, None, 0, os.fspath(path))


class _TensorBytes:
    """A hipfile.Tensor's bytes as a uint8 DLPack export (its dtype may have no DLPack code)."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        t = self._tensor
        return _hipfile._export_view(t._buffer, t._offset, 1, 8, [t.nbytes], max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self._tensor.__dlpack_device__()
