# SPDX-License-Identifier: MIT
"""Type stubs of the hipfile package."""

import enum
import os
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Optional, Tuple, Union

from . import safetensors as safetensors
from ._error import SafetensorError as _SafetensorError

from ._hipfile import (
    DeviceBuffer as DeviceBuffer,
    File as File,
    Future as Future,
    Registration as Registration,
    __version__ as __version__,
    device_count as device_count,
    driver_close as driver_close,
    driver_open as driver_open,
    library_version as library_version,
    register as register,
    set_stats_level as set_stats_level,
    stats as stats,
    stats_level as stats_level,
    stats_reset as stats_reset,
)

platform: str

class OpError(enum.IntEnum):
    """hipFileOpError_t, named without its "hipFile" prefix."""
    Success = 0
    DriverNotInitialized = 5001
    DriverInvalidProps = 5002
    DriverUnsupportedLimit = 5003
    DriverVersionMismatch = 5004
    DriverVersionReadError = 5005
    DriverClosing = 5006
    PlatformNotSupported = 5007
    IONotSupported = 5008
    DeviceNotSupported = 5009
    DriverError = 5010
    HipDriverError = 5011
    HipPointerInvalid = 5012
    HipMemoryTypeInvalid = 5013
    HipPointerRangeError = 5014
    HipContextMismatch = 5015
    InvalidMappingSize = 5016
    InvalidMappingRange = 5017
    InvalidFileType = 5018
    InvalidFileOpenFlag = 5019
    DIONotSet = 5020
    InvalidValue = 5022
    MemoryAlreadyRegistered = 5023
    MemoryNotRegistered = 5024
    PermissionDenied = 5025
    DriverAlreadyOpen = 5026
    HandleNotRegistered = 5027
    HandleAlreadyRegistered = 5028
    DeviceNotFound = 5029
    InternalError = 5030
    GetNewFDFailed = 5031
    DriverSetupError = 5033
    IODisabled = 5034
    BatchSubmitFailed = 5035
    GPUMemoryPinningFailed = 5036
    BatchFull = 5037
    AsyncNotSupported = 5038

class Error(OSError):
    message: str
    op_error: Optional[OpError]
    hip_error: int
    def __init__(self, message: str, errno: Optional[int] = None, op_error: Optional[int] = None,
                 hip_error: int = 0, filename: Optional[str] = None) -> None: ...

class CheckpointError(_SafetensorError, ValueError):
    message: str
    code: str
    file: str
    tensor: str
    def __init__(self, message: str, code: str, file: str = "", tensor: str = "") -> None: ...

class MissingTensorError(CheckpointError, KeyError): ...

class Tensor:
    dtype: str
    shape: Tuple[int, ...]
    nbytes: int
    def __init__(self, buffer: DeviceBuffer, offset: int, dtype: str, shape: Iterable[int],
                 nbytes: Optional[int] = None) -> None: ...
    @property
    def device(self) -> int: ...
    @property
    def data_ptr(self) -> int: ...
    def __dlpack__(self, *, stream: Any = None, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def to_bytes(self) -> bytes: ...
    def to_host(self) -> Any: ...  # numpy.ndarray

def load_safetensors(path_or_index: Union[str, bytes, os.PathLike], device: Any = "cuda:0",
                     names: Optional[Iterable[str]] = None,
                     as_torch: Optional[bool] = None) -> dict[str, Any]: ...
def last_load_stats() -> Optional[dict[str, Any]]: ...
def save_safetensors(tensors: Mapping[str, Any], path: Union[str, bytes, os.PathLike],
                     metadata: Optional[Mapping[str, str]] = None) -> None: ...

class Slice(NamedTuple):
    dim: int
    start: int
    stop: int

def load_safetensors_into(path_or_index: Union[str, bytes, os.PathLike, Iterable[Union[str, bytes, os.PathLike]]],
                          tensors: Mapping[str, Any], *, strict: bool = True, allow_missing: Optional[bool] = None,
                          allow_unexpected: Optional[bool] = None, parallel_reads: int = 4,
                          progress: Union[None, bool, Callable[[int, int], Any]] = None,
                          on_filled: Optional[Callable[[str], Any]] = None) -> dict[str, Any]: ...
def stream_safetensors(path_or_index: Union[str, bytes, os.PathLike], device: Any = "cuda:0",
                       names: Optional[Iterable[str]] = None, budget: Optional[int] = None,
                       as_torch: Optional[bool] = None) -> Iterator[Tuple[str, Any]]: ...
