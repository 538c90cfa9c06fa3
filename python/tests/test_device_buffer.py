# SPDX-License-Identifier: MIT
"""hipfile.DeviceBuffer: allocation, host copies, __cuda_array_interface__, __dlpack__ capsules."""

import ctypes

import numpy as np
import pytest

import hipfile
from conftest import HIP_ERROR_INVALID_VALUE, HIP_ERROR_OUT_OF_MEMORY, pattern


# The DLPack structs as the test reads them back out of a capsule (legacy and 1.0 layouts).
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DLManagedTensorVersioned._fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                                     ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))),
                                     ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

capi = ctypes.pythonapi
capi.PyCapsule_GetName.restype = ctypes.c_char_p
capi.PyCapsule_GetName.argtypes = [ctypes.py_object]
capi.PyCapsule_GetPointer.restype = ctypes.c_void_p
capi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capi.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_tensor(capsule):
    name = capi.PyCapsule_GetName(capsule)
    ptr = capi.PyCapsule_GetPointer(capsule, name)
    kind = DLManagedTensorVersioned if name == b"dltensor_versioned" else DLManagedTensor
    return name, ctypes.cast(ptr, ctypes.POINTER(kind)).contents


def test_allocation_size_device_and_repr():
    b = hipfile.DeviceBuffer(1000)
    assert b.nbytes == 1000 and len(b) == 1000 and b.device == 0 and b.ptr != 0
    assert repr(b) == "<hipfile.DeviceBuffer 1000 bytes on device 0>"


def test_host_copies_round_trip_with_offsets():
    data = pattern(4096, seed=31)
    b = hipfile.DeviceBuffer(8192)
    b.copy_from_host(bytes(8192))
    b.copy_from_host(data, offset=100)
    got = b.copy_to_host()
    assert isinstance(got, bytes) and len(got) == 8192
    assert got[100:4196] == data.tobytes() and got[:100] == bytes(100) and got[4196:] == bytes(8192 - 4196)
    assert b.copy_to_host(offset=100, size=10) == data[:10].tobytes()
    out = np.zeros(8192, dtype=np.uint8)
    assert b.copy_to_host(out) is out
    assert out.tobytes() == got


def test_host_copy_errors_name_the_sizes():
    b = hipfile.DeviceBuffer(16)
    with pytest.raises(ValueError, match="^hipfile: copy_from_host\\(src\\): src holds 17 bytes, more than the buffer's 16 bytes from offset 0$"):
        b.copy_from_host(bytes(17))
    with pytest.raises(ValueError, match="more than the buffer's 6 bytes from offset 10"):
        b.copy_from_host(bytes(7), offset=10)
    with pytest.raises(ValueError, match="^hipfile: offset 17 is beyond the buffer's 16 bytes$"):
        b.copy_to_host(offset=17)
    with pytest.raises(ValueError, match="^hipfile: size 5 at offset 12 runs past the buffer's 16 bytes$"):
        b.copy_to_host(offset=12, size=5)
    with pytest.raises(ValueError, match="fewer than the 16 to copy"):
        b.copy_to_host(bytearray(15))
    with pytest.raises(ValueError, match="read-only"):
        b.copy_to_host(bytes(16))
    with pytest.raises(ValueError, match="needs host memory"):
        b.copy_from_host(hipfile.DeviceBuffer(4))


def test_bad_sizes_and_devices_are_refused():
    with pytest.raises(ValueError, match="^hipfile: nbytes must be >= 0"):
        hipfile.DeviceBuffer(-1)
    with pytest.raises(TypeError):
        hipfile.DeviceBuffer("10")
    n = hipfile.device_count()
    with pytest.raises(ValueError, match=f"^hipfile: DeviceBuffer\\(device={n}\\): there are {n} devices$"):
        hipfile.DeviceBuffer(16, device=n)
    with pytest.raises(ValueError, match="device=-1"):
        hipfile.DeviceBuffer(16, device=-1)


def test_zero_byte_buffer():
    b = hipfile.DeviceBuffer(0)
    assert b.nbytes == 0 and b.copy_to_host() == b""
    assert b.__cuda_array_interface__["shape"] == (0,)


def test_cuda_array_interface_describes_the_bytes():
    b = hipfile.DeviceBuffer(64)
    assert b.__cuda_array_interface__ == {
        "shape": (64,), "typestr": "|u1", "data": (b.ptr, False), "strides": None, "version": 3, "stream": None,
    }


def test_dlpack_legacy_capsule_layout():
    b = hipfile.DeviceBuffer(96)
    cap = b.__dlpack__()
    name, m = capsule_tensor(cap)
    t = m.dl_tensor
    assert name == b"dltensor"
    assert t.data == b.ptr and t.ndim == 1 and t.shape[0] == 96 and not t.strides and t.byte_offset == 0
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (1, 8, 1)
    assert (t.device.device_type, t.device.device_id) == b.__dlpack_device__() == (hipfile._hipfile.dlpack_device_type, 0)


def test_dlpack_versioned_capsule_when_asked_for_1_0():
    b = hipfile.DeviceBuffer(8)
    cap = b.__dlpack__(max_version=(1, 0))  # the capsule owns what m points to
    name, m = capsule_tensor(cap)
    assert name == b"dltensor_versioned" and (m.major, m.minor) == (1, 0) and m.flags == 0
    assert m.dl_tensor.data == b.ptr and m.dl_tensor.shape[0] == 8
    cap = b.__dlpack__(max_version=(0, 8))
    assert capsule_tensor(cap)[0] == b"dltensor"


def test_dlpack_refuses_copies_and_other_devices():
    b = hipfile.DeviceBuffer(8)
    with pytest.raises(BufferError, match="copy=True"):
        b.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="another device"):
        b.__dlpack__(dl_device=(1, 0))
    assert capsule_tensor(b.__dlpack__(dl_device=b.__dlpack_device__(), copy=False))[0] == b"dltensor"


def test_consumed_capsule_is_freed_by_the_consumers_deleter(hipcpu):
    live = hipcpu.live()
    b = hipfile.DeviceBuffer(32)
    cap = b.__dlpack__()
    del b
    assert hipcpu.live() == live + 1  # the capsule holds the buffer
    # Consume it as a framework would: rename, then call the deleter when done.
    _, m = capsule_tensor(cap)
    capi.PyCapsule_SetName(cap, b"used_dltensor")
    del cap
    assert hipcpu.live() == live + 1  # a consumed capsule leaves ownership to the consumer
    m.deleter(ctypes.pointer(m))
    assert hipcpu.live() == live


def test_allocation_failure_raises_with_the_hip_error(hipcpu):
    hipcpu.inject("hipMalloc", HIP_ERROR_OUT_OF_MEMORY)
    with pytest.raises(hipfile.Error) as e:
        hipfile.DeviceBuffer(4096)
    assert e.value.op_error == hipfile.OpError.HipDriverError and e.value.hip_error == HIP_ERROR_OUT_OF_MEMORY
    assert e.value.errno is None
    assert str(e.value) == "allocate of 4096 bytes: HIP runtime error: hipErrorOutOfMemory"


def test_copy_failure_raises_and_names_the_copy(hipcpu):
    b = hipfile.DeviceBuffer(16)
    hipcpu.inject("hipMemcpy", HIP_ERROR_INVALID_VALUE)
    with pytest.raises(hipfile.Error, match="^DeviceBuffer.copy_to_host: .*hipErrorInvalidValue") as e:
        b.copy_to_host()
    assert e.value.hip_error == HIP_ERROR_INVALID_VALUE
