# SPDX-License-Identifier: MIT
"""hipfile.File: round trips into device and host memory, sizes, offsets, modes, lifetime."""

import errno
import os
import pathlib

import numpy as np
import pytest

import hipfile
from conftest import pattern, read_file, write_file


def device_bytes(buf):
    return np.frombuffer(buf.copy_to_host(), dtype=np.uint8)


def test_write_from_device_and_read_back_into_device(path):
    data = pattern(3 << 20 | 123)
    src = hipfile.DeviceBuffer(data.size)
    src.copy_from_host(data)
    with hipfile.File(path, "w") as f:
        assert f.write(src) == data.size
    assert read_file(path) == data.tobytes()
    dst = hipfile.DeviceBuffer(data.size)
    with hipfile.File(path, "r") as f:
        assert f.read(dst) == data.size
    assert np.array_equal(device_bytes(dst), data)


def test_read_into_numpy_and_bytearray(path):
    data = pattern(100_000, seed=2)
    write_file(path, data)
    arr = np.zeros(25_000, dtype=np.float32)
    ba = bytearray(100_000)
    with hipfile.File(path) as f:
        assert f.read(arr) == 100_000
        assert f.read(ba) == 100_000
    assert arr.tobytes() == data.tobytes()
    assert bytes(ba) == data.tobytes()


def test_write_from_bytes_memoryview_and_2d_numpy(path):
    block = np.arange(24, dtype=np.int16).reshape(4, 6)
    with hipfile.File(path, "w") as f:
        assert f.write(b"header--") == 8
        assert f.write(memoryview(b"abc"), file_offset=8) == 3
        assert f.write(block, file_offset=11) == 48
    assert read_file(path) == b"header--abc" + block.tobytes()


def test_size_file_offset_and_buf_offset_select_the_ranges(path):
    data = pattern(8192, seed=3)
    write_file(path, data)
    dst = hipfile.DeviceBuffer(8192)
    dst.copy_from_host(bytes(8192))
    with hipfile.File(path) as f:
        assert f.read(dst, size=1000, file_offset=4096, buf_offset=17) == 1000
    got = device_bytes(dst)
    assert np.array_equal(got[17:1017], data[4096:5096])
    assert not got[:17].any() and not got[1017:].any()


def test_size_defaults_to_the_rest_of_the_buffer_after_buf_offset(path):
    write_file(path, pattern(64, seed=4))
    out = bytearray(64)
    with hipfile.File(path) as f:
        assert f.read(out, buf_offset=60) == 4
    assert out[60:] == read_file(path)[:4] and out[:60] == bytes(60)


def test_reads_stop_short_at_the_end_of_the_file(path):
    write_file(path, pattern(1000, seed=5))
    out = bytearray(4096)
    with hipfile.File(path) as f:
        assert f.read(out, file_offset=900) == 100
        assert f.read(out, file_offset=1000) == 0
        assert f.read(out, file_offset=50_000) == 0
    assert out[:100] == read_file(path)[900:]


def test_zero_byte_io_returns_zero_and_touches_nothing(path):
    write_file(path, b"xyz")
    with hipfile.File(path, "r+") as f:
        assert f.read(bytearray(0)) == 0
        assert f.write(b"", file_offset=10) == 0
        assert f.read(hipfile.DeviceBuffer(0)) == 0
    assert read_file(path) == b"xyz"


def test_size_fileno_path_mode_and_repr(path):
    write_file(path, pattern(12345))
    with hipfile.File(pathlib.Path(path), "rb") as f:
        assert f.size() == 12345
        assert os.fstat(f.fileno()).st_ino == os.stat(path).st_ino
        assert f.path == path and f.mode == "rb" and not f.closed
        assert repr(f) == f"<hipfile.File '{path}' mode='rb'>"


def test_close_ends_the_file_and_later_calls_say_so(path):
    write_file(path, b"abcd")
    f = hipfile.File(path)
    fd = f.fileno()
    f.close()
    assert f.closed
    with pytest.raises(OSError):
        os.fstat(fd)
    for call in (lambda: f.read(bytearray(4)), lambda: f.write(b"x"), f.size, f.fileno, lambda: f.pread(bytearray(4))):
        with pytest.raises(ValueError, match="^I/O operation on closed file$"):
            call()
    f.close()  # a second close does nothing


def test_context_manager_closes_also_on_an_exception(path):
    write_file(path, b"abcd")
    with pytest.raises(RuntimeError):
        with hipfile.File(path) as f:
            raise RuntimeError("inside")
    assert f.closed


def test_modes_create_truncate_and_refuse(path):
    write_file(path, b"old contents")
    with hipfile.File(path, "w") as f:
        assert f.size() == 0
        f.write(b"new")
    with hipfile.File(path, "r+") as f:
        f.write(b"N")
    assert read_file(path) == b"New"
    with pytest.raises(hipfile.Error) as e:
        hipfile.File(path, "x")
    assert e.value.errno == 17  # EEXIST
    os.unlink(path)
    with hipfile.File(path, "x+") as f:
        f.write(b"made")
        out = bytearray(4)
        assert f.read(out) == 4 and out == b"made"


@pytest.mark.parametrize("mode", ["a", "rw", "", "r++", "wx"])
def test_invalid_modes_are_refused(path, mode):
    with pytest.raises(ValueError, match="invalid mode"):
        hipfile.File(path, mode)
    assert not os.path.exists(path)


def test_direct_false_opens_without_o_direct_and_true_requires_it(path):
    write_file(path, pattern(4096))
    with hipfile.File(path, direct=False) as f:
        assert f.direct is False
    try:
        f = hipfile.File(path, direct=True)
    except hipfile.Error as e:  # a file system without O_DIRECT (tmpfs) refuses it
        assert e.errno == 22
    else:
        assert f.direct is True
        out = bytearray(4096)
        assert f.read(out) == 4096 and out == read_file(path)
        f.close()
    with pytest.raises(TypeError, match="direct must be None, True or False"):
        hipfile.File(path, direct="yes")


def test_large_unaligned_read_through_the_engine_is_exact(path):
    data = pattern((9 << 20) + 4097, seed=9)
    write_file(path, data)
    dst = hipfile.DeviceBuffer(data.size + 3)
    with hipfile.File(path) as f:
        assert f.read(dst, file_offset=1, buf_offset=3) == data.size - 1
    assert np.array_equal(device_bytes(dst)[3:3 + data.size - 1], data[1:])


def test_read_into_a_buffer_on_the_second_device(path):
    if hipfile.device_count() < 2:
        pytest.skip("needs two devices")
    data = pattern(1 << 20, seed=11)
    write_file(path, data)
    dst = hipfile.DeviceBuffer(data.size, device=1)
    with hipfile.File(path) as f:
        assert f.read(dst) == data.size
    assert dst.device == 1
    assert np.array_equal(device_bytes(dst), data)


def test_paths_are_str_bytes_or_path_like(path):
    write_file(path, b"abc")
    with hipfile.File(os.fsencode(path)) as f:
        assert f.path == path and f.size() == 3
    with pytest.raises(TypeError):
        hipfile.File(3.5)


def test_sync_flushes_and_a_failing_sync_raises(path):
    with hipfile.File(path, "w") as f:
        assert f.write(b"data") == 4
        assert f.sync() is None
        fd, saved = f.fileno(), os.dup(f.fileno())
        r, w = os.pipe()
        os.dup2(r, fd)  # the descriptor is now a pipe, which cannot be synced (EINVAL)
        try:
            with pytest.raises(hipfile.Error) as e:
                f.sync()
        finally:
            os.dup2(saved, fd)
            for d in (saved, r, w):
                os.close(d)
        assert e.value.errno == errno.EINVAL and e.value.filename == path
        assert str(e.value) == f"sync '{path}': Invalid argument (EINVAL)"
    assert read_file(path) == b"data"
    with pytest.raises(ValueError, match="^I/O operation on closed file$"):
        f.sync()
