# SPDX-License-Identifier: MIT
"""hipfile.Error: an OSError with errno, op_error, hip_error, the path and a message that says
what was attempted; injected failures of HIP calls inside I/O."""

import errno
import os
import pickle

import pytest

import hipfile
from conftest import HIP_ERROR_INVALID_VALUE, write_file


def test_error_is_an_oserror_with_errno_and_filename():
    with pytest.raises(OSError) as e:
        hipfile.File("/nonexistent-dir/x.bin")
    err = e.value
    assert type(err) is hipfile.Error
    assert err.errno == errno.ENOENT and err.op_error is None and err.hip_error == 0
    assert err.filename == "/nonexistent-dir/x.bin"
    assert str(err) == "open '/nonexistent-dir/x.bin': No such file or directory (ENOENT)"
    assert err.message == str(err)


def test_permission_denied_is_eacces(path):
    if os.geteuid() == 0:
        pytest.skip("root opens anything")
    write_file(path, b"x")
    os.chmod(path, 0)
    with pytest.raises(hipfile.Error) as e:
        hipfile.File(path)
    assert e.value.errno == errno.EACCES


def test_writing_a_read_only_file_names_the_write(path):
    write_file(path, b"abcd")
    with hipfile.File(path, "r") as f:
        with pytest.raises(hipfile.Error) as e:
            f.write(b"zz", file_offset=7)
    assert e.value.errno == errno.EBADF
    assert str(e.value) == f"write of 2 bytes at offset 7 to '{path}': Bad file descriptor (EBADF)"


def test_opening_a_directory_is_an_invalid_file_type(tmp_path_factory_dir):
    with pytest.raises(hipfile.Error) as e:
        hipfile.File(tmp_path_factory_dir)
    assert e.value.op_error == hipfile.OpError.InvalidFileType and e.value.errno is None
    assert str(e.value) == f"register '{tmp_path_factory_dir}': invalid file type (not a regular file or block device)"


def test_an_injected_hip_failure_inside_a_device_read_is_a_hip_driver_error(path, hipcpu):
    write_file(path, b"abcdefgh")
    buf = hipfile.DeviceBuffer(8)
    with hipfile.File(path) as f:
        hipcpu.inject("hipMemcpyAsync", HIP_ERROR_INVALID_VALUE, count=1000)
        with pytest.raises(hipfile.Error) as e:
            f.read(buf)
        hipcpu.clear()
        assert f.read(buf) == 8  # the file and the library are usable afterwards
    assert e.value.op_error == hipfile.OpError.HipDriverError and e.value.errno is None
    assert str(e.value).startswith(f"read of 8 bytes at offset 0 from '{path}': HIP runtime error")
    assert buf.copy_to_host() == b"abcdefgh"


def test_op_error_enum_and_strings():
    assert hipfile.OpError.InvalidValue == 5022 and hipfile.OpError(5027).name == "HandleNotRegistered"
    assert hipfile._hipfile.op_error_string(5022) != ""
    assert hipfile._hipfile.hip_error_name(1) == "hipErrorInvalidValue"
    assert hipfile._hipfile.hip_error_name(123456) is None


def test_error_survives_pickling_and_can_be_made_by_hand():
    err = hipfile.Error("read of 1 bytes at offset 0 from 'x': end", errno.ENODATA, None, 0, "x")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is hipfile.Error and str(again) == str(err)
    assert again.errno == errno.ENODATA and again.filename == "x"
    op = hipfile.Error("register: already", None, 5023)
    assert op.op_error is hipfile.OpError.MemoryAlreadyRegistered and op.errno is None


def test_version_platform_and_library_version():
    assert hipfile.__version__.count(".") == 2
    major, minor, patch = hipfile.library_version()
    assert (major, minor, patch) == tuple(int(x) for x in hipfile.__version__.split("."))
    assert hipfile.platform in ("cpu", "amd", "nvidia")


def test_stats_count_a_read(path):
    write_file(path, b"x" * 4096)
    level = hipfile.stats_level()
    hipfile.set_stats_level(1)
    try:
        hipfile.stats_reset()
        buf = hipfile.DeviceBuffer(4096)
        with hipfile.File(path) as f:
            f.read(buf)
        s = hipfile.stats()
        assert s["level"] == 1
        assert s["engine"]["read"]["ops"] == 1 and s["engine"]["read"]["bytes"] == 4096
        assert s["engine"]["read"]["errors"] == 0 and s["host"]["read"]["ops"] == 0
        with pytest.raises(hipfile.Error) as e:
            hipfile.set_stats_level(9)
        assert e.value.op_error == hipfile.OpError.InvalidValue
    finally:
        hipfile.set_stats_level(level)
