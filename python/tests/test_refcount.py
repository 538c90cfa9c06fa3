# SPDX-License-Identifier: MIT
"""Buffers stay alive while I/O on them runs, and not a moment longer than their owners."""

import gc
import sys

import numpy as np
import pytest

import hipfile
from conftest import pattern, write_file


class CudaArray:
    def __init__(self, buf):
        self.buf = buf
        self.__cuda_array_interface__ = {"shape": (buf.nbytes,), "typestr": "|u1", "data": (buf.ptr, False),
                                         "version": 3, "strides": None}


def test_a_future_keeps_its_device_buffer_until_reaped(path, hipcpu):
    data = pattern(1 << 20, seed=61)
    write_file(path, data)
    live = hipcpu.live()
    buf = hipfile.DeviceBuffer(data.size)
    with hipfile.File(path) as f:
        fu = f.pread(buf)
        del buf
        gc.collect()
        assert hipcpu.live() == live + 1
        assert fu.get() == data.size
    assert hipcpu.live() == live  # reaped: the last reference went with it


def test_a_dropped_future_releases_its_buffer(path, hipcpu):
    write_file(path, pattern(1 << 16))
    live = hipcpu.live()
    with hipfile.File(path) as f:
        f.pread(hipfile.DeviceBuffer(1 << 16))
    assert hipcpu.live() == live


def test_a_future_keeps_a_cuda_array_interface_exporter(path):
    write_file(path, pattern(4096))
    arr = CudaArray(hipfile.DeviceBuffer(4096))
    before = sys.getrefcount(arr)
    with hipfile.File(path) as f:
        fu = f.pread(arr)
        assert sys.getrefcount(arr) == before + 1
        fu.get()
    assert sys.getrefcount(arr) == before


def test_a_future_holds_the_numpy_buffer_export(path):
    write_file(path, pattern(4096))
    out = np.zeros(4096, dtype=np.uint8)
    with hipfile.File(path) as f:
        fu = f.pread(out)
        with pytest.raises(ValueError, match="cannot resize"):
            out.resize(8192)  # an exported buffer cannot be resized under the I/O
        assert fu.get() == 4096
    out.resize(8192, refcheck=False)


def test_a_future_keeps_the_file_object(path):
    write_file(path, pattern(4096))
    f = hipfile.File(path)
    before = sys.getrefcount(f)
    fu = f.pread(bytearray(4096))
    assert sys.getrefcount(f) == before + 1
    assert fu.get() == 4096
    assert sys.getrefcount(f) == before
    f.close()


def test_a_registration_keeps_its_buffer_until_deregistered(hipcpu):
    live = hipcpu.live()
    buf = hipfile.DeviceBuffer(4096)
    reg = hipfile.register(buf)
    del buf
    assert hipcpu.live() == live + 1
    reg.deregister()
    assert hipcpu.live() == live


def test_a_dlpack_capsule_keeps_the_device_buffer(hipcpu):
    live = hipcpu.live()
    buf = hipfile.DeviceBuffer(256)
    cap = buf.__dlpack__()
    del buf
    assert hipcpu.live() == live + 1
    del cap
    assert hipcpu.live() == live


def test_io_leaves_no_reference_behind(path):
    write_file(path, pattern(4096))
    buf = hipfile.DeviceBuffer(4096)
    host = bytearray(4096)
    before = (sys.getrefcount(buf), sys.getrefcount(host))
    with hipfile.File(path, "r+") as f:
        for _ in range(10):
            f.read(buf)
            f.write(host)
            with hipfile.register(buf):
                pass
        with pytest.raises(ValueError):
            f.read(buf, size=1 << 20)
    assert (sys.getrefcount(buf), sys.getrefcount(host)) == before
