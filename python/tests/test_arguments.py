# SPDX-License-Identifier: MIT
"""Arguments every entry point checks: paths (str, bytes, os.PathLike, non-UTF-8 names, an
embedded NUL) and wrong types, which are TypeErrors naming the argument."""

import os
import pathlib
import uuid

import numpy as np
import pytest

import hipfile
from conftest import pattern, read_file, write_file
from test_buffers import CudaArray

HAS_SAFETENSORS = hasattr(hipfile._hipfile, "_load_safetensors")
needs_safetensors = pytest.mark.skipif(not HAS_SAFETENSORS, reason="built without nlohmann-json")


@pytest.fixture
def raw_path(tmp_path_factory_dir):
    """A file name that is not valid UTF-8 (bytes), removed afterwards."""
    p = os.fsencode(tmp_path_factory_dir) + f"/hipfile-py-\xff-{uuid.uuid4().hex}".encode("latin-1")
    yield p
    for q in (p, p + b".st"):
        if os.path.exists(q):
            os.unlink(q)


def test_a_nul_in_a_file_path_is_refused_and_touches_nothing(path):
    write_file(path, b"keep me")
    for bad in (path + "\0.new", os.fsencode(path) + b"\0.new", pathlib.PurePosixPath(path + "\0.new")):
        with pytest.raises(ValueError, match="^embedded null byte$"):
            hipfile.File(bad, "w")
    assert read_file(path) == b"keep me"


@needs_safetensors
def test_a_nul_in_a_checkpoint_path_is_refused_and_touches_nothing(path):
    write_file(path, b"keep me")
    for bad in (path + "\0.safetensors", os.fsencode(path) + b"\0.safetensors"):
        with pytest.raises(ValueError, match="^embedded null byte$"):
            hipfile.save_safetensors({"x": np.zeros(4, dtype=np.float32)}, bad)
        with pytest.raises(ValueError, match="^embedded null byte$"):
            hipfile.load_safetensors(bad, as_torch=False)
    assert read_file(path) == b"keep me"


def test_a_non_utf8_file_name_round_trips(raw_path):
    data = pattern(5000, seed=81)
    with hipfile.File(raw_path, "w") as f:
        assert f.write(data) == 5000
        assert f.path == os.fsdecode(raw_path)
        assert repr(f) == f"<hipfile.File {os.fsdecode(raw_path)!r} mode='w'>"
    assert read_file(raw_path) == data.tobytes()
    out = hipfile.DeviceBuffer(5000)
    for name in (raw_path, os.fsdecode(raw_path), pathlib.Path(os.fsdecode(raw_path))):
        with hipfile.File(name) as f:
            assert f.read(out) == 5000
        assert out.copy_to_host() == data.tobytes()


def test_an_error_on_a_non_utf8_name_carries_the_name(raw_path):
    with pytest.raises(hipfile.Error) as e:
        hipfile.File(raw_path)
    assert e.value.errno == 2 and e.value.filename == os.fsdecode(raw_path)
    assert os.fsdecode(raw_path) in str(e.value)


@needs_safetensors
def test_checkpoints_under_a_non_utf8_name(raw_path):
    arr = np.arange(6, dtype=np.int32)
    hipfile.save_safetensors({"a": arr}, raw_path)
    assert np.array_equal(hipfile.load_safetensors(raw_path, as_torch=False)["a"].to_host(), arr)
    assert np.array_equal(hipfile.load_safetensors(os.fsdecode(raw_path), as_torch=False)["a"].to_host(), arr)
    with pytest.raises(hipfile.Error) as e:
        hipfile.load_safetensors(raw_path + b".st", as_torch=False)
    assert e.value.errno == 2


def test_wrong_path_types_are_type_errors_naming_the_path():
    for bad in (3.5, None, ["a"]):
        with pytest.raises(TypeError, match="^hipfile: path must be str, bytes or os.PathLike, not "):
            hipfile.File(bad)


def test_file_arguments_of_the_wrong_type_are_type_errors(path):
    write_file(path, b"abcd")
    with pytest.raises(TypeError, match="^hipfile: mode must be a str, not int$"):
        hipfile.File(path, 3)
    with hipfile.File(path) as f:
        for kw, name in (({"size": "4"}, "size"), ({"file_offset": 1.0}, "file_offset"),
                         ({"buf_offset": None}, "buf_offset")):
            with pytest.raises(TypeError, match=f"^hipfile: {name} must be an int, not "):
                f.read(bytearray(4), **kw)
            with pytest.raises(TypeError, match=f"^hipfile: {name} must be an int, not "):
                f.pwrite(b"abcd", **kw)


def test_device_buffer_register_and_stats_arguments_are_type_errors():
    with pytest.raises(TypeError, match="^hipfile: nbytes must be an int, not str$"):
        hipfile.DeviceBuffer("4")
    with pytest.raises(TypeError, match="^hipfile: device must be an int, not str$"):
        hipfile.DeviceBuffer(4, "0")
    with pytest.raises(TypeError, match="^hipfile: flags must be an int, not str$"):
        hipfile.register(bytearray(16), "x")
    with pytest.raises(TypeError, match="^hipfile: level must be an int, not str$"):
        hipfile.set_stats_level("1")
    buf = hipfile.DeviceBuffer(16)
    with pytest.raises(TypeError, match="^hipfile: offset must be an int, not str$"):
        buf.copy_to_host(offset="1")


def test_dlpack_keywords_of_the_wrong_type_are_type_errors():
    buf = hipfile.DeviceBuffer(16)
    with pytest.raises(TypeError, match="^hipfile: __dlpack__ max_version must be a tuple"):
        buf.__dlpack__(max_version="1")
    with pytest.raises(TypeError, match="^hipfile: __dlpack__ dl_device must be a tuple"):
        buf.__dlpack__(dl_device=5)
    with pytest.raises(TypeError, match="^hipfile: __dlpack__ copy must be None, True or False"):
        buf.__dlpack__(copy="yes")


def test_malformed_cuda_array_interfaces_are_type_errors(path):
    write_file(path, bytes(16))
    buf = hipfile.DeviceBuffer(16)
    bad_shape, bad_data = CudaArray(buf, ("16",), "|u1"), CudaArray(buf, (16,), "|u1")
    bad_data.__cuda_array_interface__["data"] = buf.ptr
    not_a_dict = CudaArray(buf, (16,), "|u1")
    not_a_dict.__cuda_array_interface__ = [1]
    with hipfile.File(path) as f:
        for obj in (bad_shape, bad_data, not_a_dict):
            with pytest.raises(TypeError, match="^hipfile: malformed __cuda_array_interface__ of a CudaArray: "):
                f.read(obj)


@needs_safetensors
def test_safetensors_arguments_of_the_wrong_type_are_type_errors(path):
    hipfile.save_safetensors({"a": np.zeros(2, dtype=np.uint8)}, path)
    with pytest.raises(TypeError, match="^hipfile: names must be str, not int$"):
        hipfile.load_safetensors(path, names=["a", 1], as_torch=False)
    with pytest.raises(TypeError, match="^hipfile: names must be an iterable of str, not int$"):
        hipfile.load_safetensors(path, names=5, as_torch=False)
    with pytest.raises(TypeError, match="^hipfile: path must be str, bytes or os.PathLike, not int$"):
        hipfile.load_safetensors(5, as_torch=False)
    with pytest.raises(TypeError, match="^hipfile: path must be str, bytes or os.PathLike, not int$"):
        hipfile.save_safetensors({}, 5)
    with pytest.raises(TypeError, match="^hipfile: tensors must be a mapping of str to tensors, not list$"):
        hipfile.save_safetensors([("a", np.zeros(1))], path)

    class Odd:
        dtype = np.dtype("<f4")
        shape = ("2",)

    with pytest.raises(TypeError, match="^hipfile: a shape dimension must be an int, not str$"):
        hipfile.save_safetensors({"odd": Odd()}, path)
    with pytest.raises(TypeError, match="^hipfile.Tensor: shape dimensions must be ints, not str$"):
        hipfile.Tensor(hipfile.DeviceBuffer(8), 0, "F32", ("2",))


def test_a_malformed_dlpack_device_is_a_type_error(path):
    write_file(path, bytes(16))

    class OddDevice:
        def __dlpack__(self, **kwargs):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return 3

    with hipfile.File(path) as f:
        with pytest.raises(TypeError, match="^hipfile: malformed __dlpack_device__\\(\\) of a OddDevice: "):
            f.read(OddDevice())
