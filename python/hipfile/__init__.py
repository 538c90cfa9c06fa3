# SPDX-License-Identifier: MIT
"""GPU-direct file I/O for Python: hipFile reads and writes between files and device memory.

Buffers are anything with __cuda_array_interface__ (CuPy, PyTorch, Numba), __dlpack__ on a
device, hipfile.DeviceBuffer, or host memory through the buffer protocol (bytes-like objects,
NumPy arrays). Checkpoints: load_safetensors, load_safetensors_into (into tensors you have, or
slices of them), stream_safetensors, and hipfile.safetensors, a drop-in for the safetensors
package. See doc/python.md.
"""

import enum as _enum

from . import _error
from ._hipfile import (
    DeviceBuffer,
    File,
    Future,
    Registration,
    __version__,
    device_count,
    driver_close,
    driver_open,
    library_version,
    register,
    set_stats_level,
    stats,
    stats_level,
    stats_reset,
)
from . import _hipfile

OpError = _enum.IntEnum("OpError", _hipfile._op_errors)
OpError.__doc__ = "hipFile op error numbers (hipFileOpError_t without the 'hipFile' prefix)."
OpError.__module__ = __name__
_error.OpError = OpError
Error = _error.Error
CheckpointError = _error.CheckpointError
MissingTensorError = _error.MissingTensorError
for _cls in (Error, CheckpointError, MissingTensorError):
    _cls.__module__ = __name__

from ._tensor import Tensor  # noqa: E402
from ._safetensors import last_load_stats, load_safetensors, save_safetensors  # noqa: E402
from ._destination import Slice  # noqa: E402
from ._fill import load_safetensors_into  # noqa: E402
from ._stream import stream_safetensors  # noqa: E402
from . import safetensors  # noqa: E402

platform = _hipfile.platform

__all__ = [
    "CheckpointError",
    "DeviceBuffer",
    "Error",
    "File",
    "Future",
    "OpError",
    "Registration",
    "Tensor",
    "__version__",
    "device_count",
    "driver_close",
    "driver_open",
    "last_load_stats",
    "library_version",
    "MissingTensorError",
    "load_safetensors",
    "load_safetensors_into",
    "platform",
    "register",
    "save_safetensors",
    "safetensors",
    "Slice",
    "stream_safetensors",
    "set_stats_level",
    "stats",
    "stats_level",
    "stats_reset",
]
