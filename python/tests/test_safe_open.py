# SPDX-License-Identifier: MIT
"""hipfile.safetensors, the drop-in for the safetensors package: safe_open, get_slice,
load_file / save_file / load / save, with the package's return types and errors, compared with
an independent parse of the file (st_files)."""

import os

import numpy as np
import pytest

import hipfile
import st_files
from hipfile import safetensors as hst

if not hasattr(hipfile._hipfile, "_Checkpoint"):
    pytest.skip("built without nlohmann-json", allow_module_level=True)

SPECS = [("zeta", "F32", (4, 6)), ("alpha", "I16", (3, 5, 7)), ("b16", "BF16", (5, 3)), ("cube", "U8", (3, 4, 5, 3)),
         ("flag", "BOOL", (6,)), ("scalar", "F64", ()), ("none", "I32", (0, 3))]


@pytest.fixture
def ckpt(path):
    st_files.make(path, SPECS)
    return path


def torch_or_skip():
    try:
        import torch
    except ImportError:
        pytest.skip("PyTorch is not importable")
    return torch


def as_numpy_bits(t):
    """A torch tensor's values as the NumPy array st_files.array gives (bf16 as uint16 bits)."""
    torch = torch_or_skip()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def test_both_import_forms_are_the_same_module():
    import hipfile.safetensors as other

    assert other is hst and hipfile.safetensors is hst


def test_keys_are_sorted_offset_keys_in_file_order_metadata_none(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        assert f.keys() == sorted(s[0] for s in SPECS)
        assert f.offset_keys() == [s[0] for s in SPECS]
        assert f.metadata() is None


def test_metadata_is_the_files_dict(path):
    st_files.make(path, [("a", "U8", (2,))], metadata={"format": "pt", "x": "1"})
    with hst.safe_open(path, framework="numpy") as f:
        assert f.metadata() == {"format": "pt", "x": "1"}


def test_get_tensor_numpy_equals_the_parse_for_every_dtype(path):
    specs = [(d.lower(), d, (3, 5)) for d in st_files.DTYPES] + [("scalar", "F32", ()), ("empty", "I8", (0, 2))]
    st_files.make(path, specs)
    expect = st_files.parsed_arrays(path)
    with hst.safe_open(path, framework="numpy", device="cpu") as f:
        for name, want in expect.items():
            got = f.get_tensor(name)
            assert isinstance(got, np.ndarray)
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), name


def test_get_tensor_torch_equals_the_parse(ckpt):
    torch = torch_or_skip()
    expect = st_files.parsed_arrays(ckpt)
    with hst.safe_open(ckpt, framework="pt") as f:
        for name, want in expect.items():
            got = f.get_tensor(name)
            assert isinstance(got, torch.Tensor) and got.device.type == "cpu"
            assert tuple(got.shape) == want.shape
            assert as_numpy_bits(got).tobytes() == want.tobytes(), name


INDEXES = [
    (slice(1, 3),), (slice(None), 2), (Ellipsis, slice(1, 2)), (-1,), (2, Ellipsis, slice(0, 1)), (slice(None),),
    (Ellipsis,), (slice(0, 0),), (1, 2), (slice(None), slice(1, 4), 3), (slice(2, None), Ellipsis), (0, 0, 0, 0),
    (slice(None), slice(None), slice(3, 5)), (Ellipsis, -2), (slice(None, 2), 1, slice(1, 3)),
]


def key(index):
    return index if len(index) > 1 else index[0]


def applies(index, shape):
    try:
        np.empty(shape)[key(index)]
    except IndexError:
        return False
    return True


SHAPES = {n: s for n, _, s in SPECS}
CASES = [(n, i) for n in ("alpha", "cube", "zeta") for i in INDEXES if applies(i, SHAPES[n])]


@pytest.mark.parametrize("name, index", CASES, ids=repr)
def test_get_slice_matches_numpy_indexing_of_the_parse(ckpt, name, index):
    want = st_files.parsed_arrays(ckpt)[name][key(index)]
    with hst.safe_open(ckpt, framework="np") as f:
        got = f.get_slice(name)[key(index)]
    assert isinstance(got, np.ndarray) and got.flags.c_contiguous
    assert got.shape == np.shape(want) and got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_get_slice_torch_returns_contiguous_tensors(ckpt):
    torch = torch_or_skip()
    full = st_files.parsed_arrays(ckpt)
    with hst.safe_open(ckpt, framework="pt") as f:
        got = f.get_slice("b16")[1:4, 2]
        assert isinstance(got, torch.Tensor) and got.is_contiguous() and got.dtype == torch.bfloat16
        assert as_numpy_bits(got).tobytes() == full["b16"][1:4, 2].tobytes()
        got = f.get_slice("alpha")[:, :, 1:2]
        assert got.is_contiguous() and as_numpy_bits(got).tobytes() == full["alpha"][:, :, 1:2].tobytes()


def test_get_slice_reports_shape_and_dtype(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        s = f.get_slice("alpha")
        assert s.get_shape() == [3, 5, 7] and s.get_dtype() == "I16"
        assert f.get_slice("b16").get_dtype() == "BF16"


@pytest.mark.parametrize("index, message", [
    ((slice(0, 4, 2),), "steps"), ((5,), "Invalid index 5"), ((-4,), "Invalid index -4"),
    ((slice(1, 9),), "not inside"), ((slice(3, 1),), "not inside"), ((0, 0, 0, 0), "indices"),
    ((Ellipsis, Ellipsis), "Ellipsis"),
], ids=repr)
def test_indexes_safetensors_refuses_are_safetensor_errors(ckpt, index, message):
    with hst.safe_open(ckpt, framework="np") as f:
        with pytest.raises(hst.SafetensorError, match=message):
            f.get_slice("alpha")[key(index)]


def test_other_index_types_are_type_errors(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        with pytest.raises(TypeError):
            f.get_slice("alpha")[[0, 1]]
        with pytest.raises(TypeError):
            f.get_slice("alpha")[None]


def test_a_missing_tensor_is_a_safetensor_error_and_a_key_error(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        for call in (f.get_tensor, f.get_slice):
            with pytest.raises(hst.SafetensorError, match="File does not contain tensor nope") as info:
                call("nope")
            assert isinstance(info.value, KeyError) and isinstance(info.value, hipfile.MissingTensorError)


def test_checkpoint_errors_are_safetensor_errors(path):
    with open(path, "wb") as f:
        f.write(b"\x02\x00\x00\x00\x00\x00\x00\x00{x")
    with pytest.raises(hst.SafetensorError) as info:
        hst.safe_open(path, framework="np")
    assert isinstance(info.value, hipfile.CheckpointError) and info.value.code == "invalid_json"


def hostile(folder, kind):
    """A hostile input of the kind asked for, made in folder; its path."""
    p = os.path.join(folder, kind)
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "directory":
        os.mkdir(p)
    elif kind == "truncated.safetensors":
        with open(p, "wb") as f:
            f.write(b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":")
    elif kind == "nested.safetensors":
        text = ('{"a":' * 5000 + "1" + "}" * 5000).encode()
        with open(p, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text)
    elif kind == "escaping.json":
        with open(p, "w") as f:
            f.write('{"weight_map": {"a": "../escape.safetensors"}}')
    elif kind == "enormous.safetensors":
        with open(p, "wb") as f:
            f.write((1 << 62).to_bytes(8, "little") + b"{}")
    return p


@pytest.mark.parametrize("kind, code, message", [
    ("fifo", "io_error", "is a FIFO, not a regular file"),
    ("directory", "io_error", "is a directory, not a regular file"),
    ("truncated.safetensors", "header_beyond_file", "header length 16 runs past the end of the file"),
    ("nested.safetensors", "invalid_json", "header nests JSON more than 16 levels deep"),
    ("escaping.json", "invalid_index", "has a '..' component"),
    ("enormous.safetensors", "header_too_large", "header length")])
def test_hostile_files_are_refused_at_open_with_the_checkpoint_error(tmp_path, kind, code, message):
    p = hostile(str(tmp_path), kind)
    for opener in (lambda: hst.safe_open(p, framework="np"), lambda: hst.load_file(p)):
        with pytest.raises(hst.SafetensorError, match=message) as info:
            opener()  # returns: a FIFO would block a reader that opened it to read
        assert isinstance(info.value, hipfile.CheckpointError) and info.value.code == code


def test_enormous_indexes_are_safetensor_errors_not_overflows(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        s = f.get_slice("zeta")
        for index in (1 << 70, -(1 << 70), slice(0, 1 << 70), (slice(None), slice(1 << 64, None))):
            with pytest.raises(hst.SafetensorError):
                s[index]


def test_a_closed_file_refuses_every_call(ckpt):
    with hst.safe_open(ckpt, framework="np") as f:
        pass
    for call in (f.keys, f.metadata, lambda: f.get_tensor("zeta"), lambda: f.get_slice("zeta")):
        with pytest.raises(hst.SafetensorError, match="File is closed"):
            call()


def test_a_missing_file_is_file_not_found(path):
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        hst.safe_open(path, framework="np")


@pytest.mark.parametrize("framework, device, message", [
    ("mxnet", "cpu", "framework mxnet is invalid"), ("np", "cuda:0", "not supported for framework numpy"),
    ("pt", "tpu", "device tpu is invalid")])
def test_bad_frameworks_and_devices(ckpt, framework, device, message):
    with pytest.raises(hst.SafetensorError, match=message):
        hst.safe_open(ckpt, framework=framework, device=device)


def test_load_file_equals_the_parse_in_file_order(ckpt):
    torch = torch_or_skip()
    expect = st_files.parsed_arrays(ckpt)
    got = hst.load_file(ckpt)
    assert list(got) == list(expect)
    for name, want in expect.items():
        assert isinstance(got[name], torch.Tensor) and tuple(got[name].shape) == want.shape
        assert as_numpy_bits(got[name]).tobytes() == want.tobytes(), name


def test_save_file_and_load_file_round_trip_with_metadata(path):
    torch = torch_or_skip()
    tensors = {"w": torch.arange(12, dtype=torch.float32).reshape(3, 4), "b": torch.ones(5, dtype=torch.bfloat16),
               "i": torch.tensor([1, -2], dtype=torch.int64)}
    assert hst.save_file(tensors, path, metadata={"format": "pt"}) is None
    back = hst.load_file(path)
    assert set(back) == set(tensors)
    for k, v in tensors.items():
        assert back[k].dtype == v.dtype and torch.equal(back[k], v)
    with hst.safe_open(path, framework="pt") as f:
        assert f.metadata() == {"format": "pt"}
    parsed, meta = st_files.parse(path)
    assert meta == {"format": "pt"} and parsed["w"][2] == tensors["w"].numpy().tobytes()


def test_save_and_load_bytes(path):
    torch = torch_or_skip()
    tensors = {"a": torch.zeros((2, 2)), "b": torch.arange(6, dtype=torch.uint8).reshape(2, 3)}
    blob = hst.save(tensors)
    assert isinstance(blob, bytes)
    with open(path, "wb") as f:
        f.write(blob)
    assert st_files.parse(path)[0]["b"][2] == bytes(range(6))
    back = hst.load(blob)
    assert all(torch.equal(back[k], v) for k, v in tensors.items())


def test_the_safetensors_slice_example(path):
    torch = torch_or_skip()
    hst.save_file({"test": torch.arange(6, dtype=torch.float32).reshape((1, 2, 3))}, path)
    with hst.safe_open(path, framework="pt") as f:
        tensor = f.get_slice("test")[:, :, 1:2]
    assert tensor.numpy().tobytes() == b"\x00\x00\x80?\x00\x00\x80@"
    assert torch.equal(tensor, torch.Tensor([[[1.0], [4.0]]]))


def test_an_index_file_opens_as_one_checkpoint(path):
    import json

    shard = path + ".1.safetensors"
    try:
        st_files.make(shard, [("a", "F32", (2, 3))])
        with open(path + ".index.json", "w") as f:
            json.dump({"weight_map": {"a": os.path.basename(shard)}}, f)
        with hst.safe_open(path + ".index.json", framework="np") as f:
            assert f.get_slice("a")[1].tobytes() == st_files.parsed_arrays(shard)["a"][1].tobytes()
    finally:
        os.unlink(shard)
