# SPDX-License-Identifier: MIT
"""What counts as a buffer: __cuda_array_interface__, __dlpack__, the buffer protocol; and the
checks on contiguity, writability and ranges, with their messages."""

import numpy as np
import pytest

import hipfile
from conftest import DLPackOnly, pattern, read_file, write_file


class CudaArray:
    """A minimal __cuda_array_interface__ exporter over a DeviceBuffer (what CuPy/Numba give)."""

    def __init__(self, buf, shape, typestr, strides=None, readonly=False, offset=0, mask=None):
        self.buf = buf
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (buf.ptr + offset, readonly),
            "strides": strides, "version": 3, "stream": None,
        }
        if mask is not None:
            self.__cuda_array_interface__["mask"] = mask


def host_of(buf):
    return np.frombuffer(buf.copy_to_host(), dtype=np.uint8)


def test_cuda_array_interface_with_shape_typestr_and_offset_pointer(path):
    data = pattern(4096, seed=21)
    write_file(path, data)
    buf = hipfile.DeviceBuffer(8192)
    buf.copy_from_host(bytes(8192))
    view = CudaArray(buf, (16, 64), "<f4", offset=1024)  # 4096 bytes starting at byte 1024
    with hipfile.File(path) as f:
        assert f.read(view) == 4096
    got = host_of(buf)
    assert np.array_equal(got[1024:5120], data) and not got[:1024].any() and not got[5120:].any()


def test_cuda_array_interface_with_explicit_c_strides_is_contiguous(path):
    write_file(path, pattern(48, seed=22))
    buf = hipfile.DeviceBuffer(48)
    with hipfile.File(path) as f:
        assert f.read(CudaArray(buf, (4, 3), "<i4", strides=(12, 4))) == 48
        assert f.read(CudaArray(buf, (1, 12), "<i4", strides=(999, 4))) == 48  # extent 1: any stride
    assert host_of(buf).tobytes() == read_file(path)


@pytest.mark.parametrize("shape,strides", [((4, 3), (4, 16)), ((6,), (8,)), ((2, 2), (4, 8))])
def test_cuda_array_interface_non_contiguous_is_refused(path, shape, strides):
    write_file(path, b"x" * 64)
    buf = hipfile.DeviceBuffer(64)
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="^hipfile: the CudaArray buffer is not C-contiguous"):
            f.read(CudaArray(buf, shape, "<i4", strides=strides))


def test_read_only_cuda_array_is_refused_as_destination_and_accepted_as_source(path):
    buf = hipfile.DeviceBuffer(16)
    buf.copy_from_host(b"0123456789abcdef")
    ro = CudaArray(buf, (16,), "|u1", readonly=True)
    with hipfile.File(path, "w+") as f:
        assert f.write(ro) == 16
        with pytest.raises(ValueError, match="^hipfile: the CudaArray buffer is read-only and cannot be read into$"):
            f.read(ro)
    assert read_file(path) == b"0123456789abcdef"


def test_masked_cuda_arrays_and_odd_typestrs_are_refused(path):
    write_file(path, b"x" * 16)
    buf = hipfile.DeviceBuffer(16)
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="masked"):
            f.read(CudaArray(buf, (16,), "|u1", mask=object()))
        with pytest.raises(ValueError, match="typestr"):
            f.read(CudaArray(buf, (16,), "|u"))


def test_dlpack_device_exporter_round_trip(path):
    data = pattern(5000, seed=23)
    src = hipfile.DeviceBuffer(5000)
    src.copy_from_host(data)
    with hipfile.File(path, "w+") as f:
        assert f.write(DLPackOnly(src)) == 5000
        dst = hipfile.DeviceBuffer(5000)
        assert f.read(DLPackOnly(dst)) == 5000
    assert read_file(path) == data.tobytes()
    assert np.array_equal(host_of(dst), data)


def test_dlpack_typed_view_counts_elements_times_itemsize(path):
    write_file(path, pattern(64, seed=24))
    buf = hipfile.DeviceBuffer(64)
    view = hipfile.Tensor(buf, 8, "F32", (2, 3))  # 24 bytes at offset 8
    with hipfile.File(path) as f:
        assert f.read(view) == 24
    assert host_of(buf)[8:32].tobytes() == read_file(path)[:24]


def test_numpy_cpu_dlpack_is_host_memory(path):
    data = pattern(256, seed=25)
    write_file(path, data)
    out = np.zeros(256, dtype=np.uint8)
    with hipfile.File(path) as f:
        assert f.read(DLPackOnly(out)) == 256
    assert np.array_equal(out, data)


def test_non_contiguous_host_buffers_are_refused(path):
    write_file(path, b"x" * 64)
    arr = np.zeros(64, dtype=np.uint8)
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="^hipfile: the ndarray buffer is not C-contiguous"):
            f.read(arr[::2])
        with pytest.raises(ValueError, match="not C-contiguous"):
            f.read(np.zeros((4, 4), dtype=np.uint8).T)
        with pytest.raises(ValueError, match="^hipfile: the memoryview buffer is not C-contiguous"):
            f.read(memoryview(bytearray(64))[::2])
    assert not arr.any()


def test_read_only_host_buffers_cannot_be_read_into(path):
    write_file(path, b"abcd")
    frozen = np.zeros(4, dtype=np.uint8)
    frozen.flags.writeable = False
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="^hipfile: the bytes buffer is read-only and cannot be read into$"):
            f.read(b"\0" * 4)
        with pytest.raises(ValueError, match="^hipfile: the ndarray buffer is read-only"):
            f.read(frozen)
    assert not frozen.any()


@pytest.mark.parametrize("obj", [3, "text", None, [1, 2, 3], object()])
def test_objects_that_are_not_buffers_are_a_type_error(path, obj):
    write_file(path, b"abcd")
    with hipfile.File(path) as f:
        with pytest.raises(TypeError, match=f"^hipfile: a {type(obj).__name__} is not a buffer"):
            f.read(obj)


def test_out_of_range_and_bad_arguments(path):
    write_file(path, b"x" * 64)
    buf = bytearray(16)
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="^hipfile: buf_offset 17 is beyond the buffer's 16 bytes$"):
            f.read(buf, buf_offset=17)
        with pytest.raises(ValueError, match="^hipfile: size 9 at buf_offset 8 runs past the buffer's 16 bytes$"):
            f.read(buf, size=9, buf_offset=8)
        with pytest.raises(ValueError, match="^hipfile: size must be >= 0, got -1$"):
            f.read(buf, size=-1)
        with pytest.raises(ValueError, match="^hipfile: file_offset must be >= 0, got -5$"):
            f.read(buf, file_offset=-5)
        with pytest.raises(ValueError, match="^hipfile: buf_offset must be >= 0"):
            f.write(buf, buf_offset=-1)
        with pytest.raises(ValueError, match="beyond the largest file offset"):
            f.read(buf, file_offset=1 << 63)
        with pytest.raises(ValueError, match="too large"):
            f.read(buf, size=1 << 64)
        with pytest.raises(TypeError, match="^hipfile: size must be an int, not float$"):
            f.read(buf, size=1.5)
    assert buf == bytearray(16)


def test_size_zero_with_buf_offset_at_the_end_is_allowed(path):
    write_file(path, b"abcd")
    with hipfile.File(path) as f:
        assert f.read(bytearray(4), buf_offset=4) == 0


def test_a_failing_switch_to_the_producers_device_raises(path, hipcpu):
    if hipfile.device_count() < 2:
        pytest.skip("needs two devices")
    write_file(path, bytes(64))
    arr = CudaArray(hipfile.DeviceBuffer(64, device=1), (64,), "|u1")
    with hipfile.File(path) as f:
        hipcpu.inject("hipSetDevice", 101)  # hipErrorInvalidDevice
        with pytest.raises(hipfile.Error) as e:
            f.read(arr)
    assert e.value.hip_error == 101
    assert str(e.value).startswith("selecting device 1 to synchronize the buffer's stream: ")
