# SPDX-License-Identifier: MIT
"""hipfile.register: registration as a context manager, I/O inside registered buffers, errors."""

import numpy as np
import pytest

import hipfile
from conftest import pattern, read_file, write_file


def test_registered_device_buffer_reads_and_writes_at_interior_offsets(path):
    data = pattern(1 << 16, seed=41)
    write_file(path, data)
    buf = hipfile.DeviceBuffer(1 << 17)
    buf.copy_from_host(bytes(1 << 17))
    with hipfile.register(buf) as reg:
        assert reg.active and reg.nbytes == 1 << 17
        with hipfile.File(path, "r+") as f:
            assert f.read(buf, size=4096, file_offset=8192, buf_offset=65536) == 4096
            assert f.write(buf, size=4096, file_offset=0, buf_offset=65536) == 4096
    assert not reg.active
    got = np.frombuffer(buf.copy_to_host(), dtype=np.uint8)
    assert np.array_equal(got[65536:69632], data[8192:12288]) and not got[:65536].any()
    assert read_file(path)[:4096] == data[8192:12288].tobytes()


def test_registered_host_numpy_array(path):
    data = pattern(10_000, seed=42)
    write_file(path, data)
    arr = np.zeros(10_000, dtype=np.uint8)
    with hipfile.register(arr), hipfile.File(path) as f:
        assert f.read(arr) == 10_000
    assert np.array_equal(arr, data)


def test_registering_an_overlapping_range_twice_is_refused():
    buf = hipfile.DeviceBuffer(4096)
    with hipfile.register(buf):
        with pytest.raises(hipfile.Error) as e:
            hipfile.register(buf)
        assert e.value.op_error == hipfile.OpError.MemoryAlreadyRegistered
        assert str(e.value) == "register buffer of 4096 bytes: memory already registered"
    with hipfile.register(buf):  # deregistered on exit: registering again works
        pass


def test_deregister_by_hand_twice_and_repr():
    buf = hipfile.DeviceBuffer(100)
    reg = hipfile.register(buf)
    assert repr(reg).startswith("<hipfile.Registration 100 bytes at 0x") and repr(reg).endswith(">")
    reg.deregister()
    reg.deregister()
    assert not reg.active and repr(reg).endswith(" deregistered>")


def test_dropping_a_registration_deregisters():
    buf = hipfile.DeviceBuffer(64)
    reg = hipfile.register(buf)
    with pytest.raises(hipfile.Error) as e:  # while it lives, the range is taken
        hipfile.register(buf)
    assert e.value.op_error == hipfile.OpError.MemoryAlreadyRegistered
    del reg  # the last reference: deregisters now, not at some later collection
    again = hipfile.register(buf)
    assert again.active and again.nbytes == 64
    again.deregister()


def test_registering_what_is_not_a_buffer_is_a_type_error():
    with pytest.raises(TypeError, match="is not a buffer"):
        hipfile.register(42)
