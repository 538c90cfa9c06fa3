# SPDX-License-Identifier: MIT
"""File.pread / File.pwrite: many operations in flight from one thread, results, errors."""

import numpy as np
import pytest

import hipfile
from conftest import pattern, read_file, write_file


def test_many_reads_in_flight_land_byte_for_byte(path):
    chunk, count = 64 << 10, 64
    data = pattern(chunk * count, seed=51)
    write_file(path, data)
    buf = hipfile.DeviceBuffer(data.size)
    with hipfile.File(path) as f:
        # Reversed order, so the completions cannot simply follow the submissions.
        futures = [f.pread(buf, chunk, i * chunk, (count - 1 - i) * chunk) for i in range(count)]
        assert [fu.get() for fu in futures] == [chunk] * count
    got = np.frombuffer(buf.copy_to_host(), dtype=np.uint8).reshape(count, chunk)
    assert np.array_equal(got[::-1].reshape(-1), data)


def test_writes_in_flight_then_read_back(path):
    data = pattern(1 << 20, seed=52)
    src = hipfile.DeviceBuffer(data.size)
    src.copy_from_host(data)
    with hipfile.File(path, "w") as f:
        futures = [f.pwrite(src, 1 << 16, i << 16, i << 16) for i in range(16)]
        assert sum(fu.get() for fu in futures) == data.size
    assert read_file(path) == data.tobytes()


def test_host_buffer_futures(path):
    data = pattern(3000, seed=53)
    write_file(path, data)
    out = np.zeros(3000, dtype=np.uint8)
    with hipfile.File(path) as f:
        a = f.pread(out, 1000)
        b = f.pread(out, None, 1000, 1000)
        assert a.get() == 1000 and b.get() == 2000
    assert np.array_equal(out, data)


def test_done_becomes_true_and_get_repeats_its_result(path):
    write_file(path, pattern(4096))
    with hipfile.File(path) as f:
        fu = f.pread(bytearray(4096))
        assert fu.get() == 4096
        assert fu.done() is True
        assert fu.get() == 4096
        fu2 = f.pread(bytearray(4096))
        while not fu2.done():
            pass
        assert fu2.get() == 4096
    assert fu.size == 4096 and fu.file_offset == 0
    assert repr(fu) == f"<hipfile.Future read of 4096 bytes at offset 0 from '{path}'>"


def test_short_and_empty_reads(path):
    write_file(path, b"abc")
    with hipfile.File(path) as f:
        out = bytearray(10)
        assert f.pread(out).get() == 3
        assert f.pread(out, None, 3).get() == 0
        empty = f.pread(out, 0)
        assert empty.done() and empty.get() == 0
    assert out[:3] == b"abc"


def test_a_failed_operation_raises_from_get_with_the_errno(path):
    write_file(path, b"abcd")
    with hipfile.File(path, "r") as f:
        fu = f.pwrite(b"wxyz")
        with pytest.raises(hipfile.Error) as e:
            fu.get()
        assert e.value.errno == 9
        assert str(e.value) == f"write of 4 bytes at offset 0 to '{path}': Bad file descriptor (EBADF)"
        with pytest.raises(hipfile.Error):
            fu.get()  # the same error again
        assert fu.done()
    assert read_file(path) == b"abcd"


def test_argument_errors_raise_at_submission(path):
    write_file(path, b"abcd")
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="runs past the buffer"):
            f.pread(bytearray(4), 5)
        with pytest.raises(TypeError, match="is not a buffer"):
            f.pread(None)
        with pytest.raises(ValueError, match="read-only"):
            f.pread(b"xxxx")


def test_dropping_unfinished_futures_is_safe(path):
    data = pattern(4 << 20, seed=54)
    write_file(path, data)
    buf = hipfile.DeviceBuffer(data.size)
    with hipfile.File(path) as f:
        for i in range(8):
            f.pread(buf, 1 << 19, i << 19, i << 19)  # dropped at once: waits or cancels
        assert f.read(buf) == data.size
    assert np.frombuffer(buf.copy_to_host(), dtype=np.uint8).tobytes() == data.tobytes()


def test_closing_the_file_while_futures_run_waits_for_them(path):
    data = pattern(2 << 20, seed=55)
    write_file(path, data)
    buf = hipfile.DeviceBuffer(data.size)
    f = hipfile.File(path)
    futures = [f.pread(buf, 1 << 18, i << 18, i << 18) for i in range(8)]
    f.close()
    results = []
    for fu in futures:
        try:
            results.append(fu.get())
        except hipfile.Error as e:  # not started before the handle went: refused, never torn
            assert e.op_error == hipfile.OpError.HandleNotRegistered
            results.append(None)
    got = np.frombuffer(buf.copy_to_host(), dtype=np.uint8)
    for i, r in enumerate(results):
        if r is not None:
            assert r == 1 << 18 and np.array_equal(got[i << 18:(i + 1) << 18], data[i << 18:(i + 1) << 18])


def test_an_injected_hip_failure_reaches_get(path, hipcpu):
    write_file(path, pattern(1 << 16, seed=56))
    buf = hipfile.DeviceBuffer(1 << 16)
    with hipfile.File(path) as f:
        hipcpu.inject("hipMemcpyAsync", 1, count=1000)  # hipErrorInvalidValue
        fu = f.pread(buf)
        with pytest.raises(hipfile.Error) as e:
            fu.get()
        hipcpu.clear()
        assert f.pread(buf).get() == 1 << 16
    assert e.value.op_error == hipfile.OpError.HipDriverError
    assert str(e.value).startswith(f"read of 65536 bytes at offset 0 from '{path}': ")
