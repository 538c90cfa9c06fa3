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


@needs_safetensors
def test_integers_out_of_range_are_value_errors_naming_the_argument(path):
    # pybind11 once answered these with "incompatible function arguments" for a C++ unsigned or int.
    hipfile.save_safetensors({"a": np.zeros(2, dtype=np.uint8)}, path)
    with pytest.raises(ValueError, match="^hipfile: parallel_reads is too large: 4294967296$"):
        hipfile.load_safetensors_into(path, {"a": np.zeros(2, dtype=np.uint8)}, parallel_reads=2**32)
    with pytest.raises(ValueError, match="^hipfile: budget is too large: 18446744073709551616$"):
        next(iter(hipfile.stream_safetensors(path, device=0, budget=2**64, as_torch=False)))
    with pytest.raises(ValueError, match=r"^hipfile: device 1099511627776 does not exist \(\d+ found\)$"):
        hipfile.load_safetensors(path, device=2**40, as_torch=False)
    with pytest.raises(ValueError, match="^hipfile: world_size is too large: 4294967296$"):
        hipfile._hipfile._tensor_parallel_slice((8,), "column", 0, 2**32)
    with pytest.raises(ValueError, match="^hipfile: rank must be >= 0, got -1$"):
        hipfile._hipfile._tensor_parallel_slice((8,), "column", -1, 2)
    with pytest.raises(ValueError, match="^hipfile: device is out of range: 1099511627776$"):
        hipfile._hipfile._load_safetensors(path, 2**40, None)


def test_a_world_size_above_the_librarys_is_refused_by_load_model_s_check(monkeypatch):
    from hipfile import _distributed

    monkeypatch.setattr(_distributed, "_dist", lambda: None)  # no torch.distributed needed
    assert _distributed.tensor_parallel_ranks(1, 2**32 - 1, None) == (1, 2**32 - 1)
    with pytest.raises(ValueError, match="^hipfile: world_size 4294967296 is above 4294967295, "):
        _distributed.tensor_parallel_ranks(0, 2**32, None)


@needs_safetensors
def test_strings_utf8_cannot_hold_are_unicode_errors_naming_what_they_are(path):
    lone = "a\udc80b"  # what os.fsdecode makes of the byte 0x80
    hipfile.save_safetensors({"a": np.zeros(2, dtype=np.uint8)}, path)
    cases = [
        (lambda: hipfile.save_safetensors({lone: np.zeros(2, dtype=np.uint8)}, path + ".new"), "a tensor name"),
        (lambda: hipfile.save_safetensors({}, path + ".new", metadata={"k": lone}), "a metadata value"),
        (lambda: hipfile.save_safetensors({}, path + ".new", metadata={lone: "v"}), "a metadata key"),
        (lambda: hipfile.load_safetensors(path, names=[lone], as_torch=False), "a name in names"),
        (lambda: hipfile.load_safetensors_into(path, {lone: np.zeros(2, dtype=np.uint8)}, strict=False),
         "a destination's name"),
        (lambda: hipfile._hipfile._tensor_parallel_slice((8,), lone, 0, 2), "layout"),
    ]
    for call, what in cases:
        with pytest.raises(UnicodeEncodeError) as e:
            call()
        assert e.value.object == lone and (e.value.start, e.value.end) == (1, 2), what
        assert e.value.reason == f"surrogates not allowed (hipfile: {what})"
    assert not os.path.exists(path + ".new")


@needs_safetensors
def test_a_negative_device_is_refused_before_anything_is_read(path, hipcpu):
    live = hipcpu.live()
    # The file does not exist: opening or reading first would raise hipfile.Error (ENOENT) instead.
    for device in (-1, -5, "cuda:-5"):
        with pytest.raises(ValueError, match="^hipfile: device -(1|5) does not exist|is not 'cuda:N'"):
            hipfile.load_safetensors(path, device=device, as_torch=False)
        with pytest.raises(ValueError):
            hipfile.stream_safetensors(path, device=device, as_torch=False)
    assert hipcpu.live() == live
