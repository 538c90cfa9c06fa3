# SPDX-License-Identifier: MIT
"""stream_safetensors: a checkpoint's tensors one at a time, in file order, each in device
memory of its own as soon as it is there (<hipfile-safetensors/stream.hpp>), so a consumer can
quantize, shard or place one while the next ones are read, within a read-ahead budget."""

from . import _hipfile
from ._safetensors import _as_torch, _device_index, _existing_device, _import_torch, _names_list, _require, _torch_for
from ._tensor import Tensor


def _budget(budget):
    if budget is None:
        return 0  # the library's default: 512 MiB, at least twice the largest tensor
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise ValueError(f"hipfile: budget must be a number of bytes >= 1 or None, got {budget!r}")
    return budget


def _tensor(torch, index, name, dtype, shape, memory):
    nbytes = memory.nbytes if memory is not None else 0
    if torch is not None:
        alloc = 0 if memory is not None else None
        return _as_torch(torch, [memory] if memory is not None else [], [(name, dtype, shape, alloc, 0, nbytes)],
                         index)[name]
    return Tensor(memory if memory is not None else _hipfile.DeviceBuffer(0, index), 0, dtype, shape, nbytes)


def _generate(stream, torch, index):
    for name, dtype, shape, memory in stream:
        yield name, _tensor(torch, index, name, dtype, shape, memory)


def stream_safetensors(path_or_index, device="cuda:0", names=None, budget=None, as_torch=None):
    """Yields (name, tensor) for a checkpoint's tensors in file order (shard by shard, by
    offset), each as soon as its bytes are on the device, while later ones are read ahead.

    path_or_index, device, names and as_torch are as load_safetensors takes them (torch tensors
    when PyTorch can hold memory on the device, else hipfile.Tensor). Each tensor owns its own
    device memory, freed when it is dropped. budget: the most bytes read ahead and not yet
    yielded (default: 512 MiB, raised to twice the largest tensor); a selected tensor larger
    than it is refused here, before any read (hipfile.CheckpointError, code "invalid_argument",
    naming it). The checkpoint is opened and the reads start when this is called; errors while
    reading are raised by the iteration, at the tensor concerned.
    """
    _require()
    torch = _import_torch(as_torch)
    usable = torch if torch is not None and torch.cuda.is_available() else None
    index = _existing_device(_device_index(device, usable))
    torch = _torch_for(torch, as_torch, index)
    stream = _hipfile._Checkpoint(path_or_index).stream(index, _names_list(names), _budget(budget), 2)
    return _generate(stream, torch, index)
