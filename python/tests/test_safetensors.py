# SPDX-License-Identifier: MIT
"""load_safetensors / save_safetensors against a reference reader and writer of the format
written here (8-byte little-endian header length, JSON header, data section)."""

import gc
import json
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import types

import numpy as np
import pytest

import hipfile
import st_files
from conftest import pattern

if not hasattr(hipfile._hipfile, "_load_safetensors"):
    pytest.skip("built without nlohmann-json", allow_module_level=True)

ITEMSIZE = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "C64": 8, "I64": 8, "I32": 4,
            "I16": 2, "I8": 1, "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1}
NUMPY = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "F8_E4M3": "|u1", "F8_E5M2": "|u1", "C64": "<c8",
         "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "|i1", "U64": "<u8", "U32": "<u4", "U16": "<u2",
         "U8": "|u1", "BOOL": "|b1"}


def reference_write(path, tensors, metadata=None, pad=True):
    """tensors: [(name, dtype, shape, raw bytes)] laid out in the order given, no alignment:
    st_files' writer, which uses no hipfile."""
    st_files.write(path, tensors, metadata, pad)


def load_plain(*args, **kwargs):
    """load_safetensors giving hipfile.Tensor also where PyTorch is installed (the H200)."""
    return hipfile.load_safetensors(*args, as_torch=False, **kwargs)


def reference_read(path):
    """{name: (dtype, shape, raw bytes)}, metadata: st_files' parse, which uses no hipfile."""
    return st_files.parse(path)


def values(dtype, shape, seed):
    raw = pattern(int(np.prod(shape, dtype=np.int64)) * ITEMSIZE[dtype], seed).tobytes()
    if dtype == "BOOL":
        raw = bytes(b & 1 for b in raw)
    return raw


def check_loaded(loaded, expect):
    assert list(loaded) == [t[0] for t in expect] or set(loaded) == {t[0] for t in expect}
    for name, dtype, shape, raw in expect:
        t = loaded[name]
        assert isinstance(t, hipfile.Tensor)
        assert (t.dtype, t.shape, t.nbytes) == (dtype, tuple(shape), len(raw))
        assert t.to_bytes() == raw
        host = t.to_host()
        assert host.shape == tuple(shape) and host.tobytes() == raw
        assert host.dtype == np.dtype(NUMPY[dtype])


def test_every_dtype_empty_scalar_and_odd_sizes_load_byte_for_byte(path):
    expect = [(f"t.{d}", d, (3, 5), values(d, (3, 5), i)) for i, d in enumerate(ITEMSIZE)]
    expect += [("empty", "F32", (0, 7), b""), ("scalar", "I64", (), values("I64", (), 99)),
               ("odd", "U8", (1001,), values("U8", (1001,), 98)), ("one", "BF16", (1,), values("BF16", (1,), 97))]
    reference_write(path, expect, metadata={"format": "pt"})
    check_loaded(load_plain(path, device="cuda:0"), expect)


def test_misaligned_tensors_are_still_exact(path):
    expect = [("b", "U8", (3,), b"\x01\x02\x03"), ("f", "F32", (5,), values("F32", (5,), 1)),
              ("h", "F16", (7,), values("F16", (7,), 2)), ("d", "F64", (2,), values("F64", (2,), 3))]
    reference_write(path, expect, pad=False)
    check_loaded(load_plain(path), expect)


def test_names_select_a_subset_and_a_missing_name_is_a_key_error(path):
    expect = [(f"w{i}", "F32", (64,), values("F32", (64,), i)) for i in range(6)]
    reference_write(path, expect)
    got = load_plain(path, names=["w4", "w1"])
    assert set(got) == {"w1", "w4"}
    check_loaded(got, [expect[1], expect[4]])
    assert load_plain(path, names="w2")["w2"].to_bytes() == expect[2][3]
    with pytest.raises(KeyError) as e:
        load_plain(path, names=["w1", "nope"])
    assert isinstance(e.value, hipfile.MissingTensorError) and e.value.code == "no_such_tensor"
    assert str(e.value) == f"{path}: tensor 'nope': is not in the checkpoint"
    assert load_plain(path, names=[]) == {}


def test_an_index_of_two_shards_loads_every_tensor(path):
    base = os.path.dirname(path)
    shard_names = [os.path.basename(path) + f".shard{i}" for i in range(2)]
    a = [("a.x", "F32", (10, 10), values("F32", (10, 10), 1)), ("a.y", "I8", (33,), values("I8", (33,), 2))]
    b = [("b.x", "BF16", (4, 4), values("BF16", (4, 4), 3))]
    index = path + ".index.json"
    try:
        reference_write(os.path.join(base, shard_names[0]), a)
        reference_write(os.path.join(base, shard_names[1]), b)
        with open(index, "w") as f:
            json.dump({"metadata": {}, "weight_map": {"a.x": shard_names[0], "a.y": shard_names[0],
                                                      "b.x": shard_names[1]}}, f)
        got = load_plain(index)
        check_loaded(got, a + b)
        assert got["a.x"]._buffer is got["a.y"]._buffer and got["a.x"]._buffer is not got["b.x"]._buffer
    finally:
        for s in shard_names:
            if os.path.exists(os.path.join(base, s)):
                os.unlink(os.path.join(base, s))


def test_loading_onto_the_second_device(path):
    if hipfile.device_count() < 2:
        pytest.skip("needs two devices")
    expect = [("x", "F32", (256,), values("F32", (256,), 5))]
    reference_write(path, expect)
    for device in (1, "cuda:1", "hip:1"):
        got = load_plain(path, device=device)
        assert got["x"].device == 1 and got["x"].to_bytes() == expect[0][3]


@pytest.mark.parametrize("device", ["cpu", "cuda:x", "tpu:0", None])
def test_bad_devices_are_refused(path, device):
    reference_write(path, [("x", "U8", (1,), b"\0")])
    with pytest.raises(ValueError, match="into device memory"):
        load_plain(path, device=device)


def test_freeing_the_tensors_frees_the_device_memory(path, hipcpu):
    reference_write(path, [("x", "F32", (1000,), values("F32", (1000,), 1)), ("y", "U8", (5,), b"12345")])
    live = hipcpu.live()
    got = load_plain(path)
    assert hipcpu.live() == live + 1  # one allocation for the file
    x = got.pop("x")
    del got
    assert hipcpu.live() == live + 1  # x still holds it
    del x
    assert hipcpu.live() == live


def write_raw(path, blob):
    with open(path, "wb") as f:
        f.write(blob)


def header_file(path, header, data=b"", length=None):
    text = json.dumps(header).encode() if not isinstance(header, bytes) else header
    write_raw(path, struct.pack("<Q", len(text) if length is None else length) + text + data)


MALFORMED = [
    ("file_too_short", lambda p: write_raw(p, b"\1\0\0")),
    ("header_too_large", lambda p: write_raw(p, struct.pack("<Q", 100_000_001) + b"{}")),
    ("header_beyond_file", lambda p: header_file(p, {}, length=50)),
    ("invalid_json", lambda p: header_file(p, b"{not json")),
    ("invalid_utf8", lambda p: header_file(p, b'{"\xff": 1}')),
    ("header_not_object", lambda p: header_file(p, [1, 2])),
    ("unknown_dtype", lambda p: header_file(p, {"x": {"dtype": "F13", "shape": [1], "data_offsets": [0, 1]}}, b"\0")),
    ("invalid_shape", lambda p: header_file(p, {"x": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}}, b"\0")),
    ("offsets_out_of_range", lambda p: header_file(p, {"x": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}, b"\0")),
    ("size_mismatch", lambda p: header_file(p, {"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}, b"\0" * 4)),
    ("offsets_overlap", lambda p: header_file(p, {"x": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                                                  "y": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]}}, b"\0" * 4)),
    ("offsets_gap", lambda p: header_file(p, {"x": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
                                              "y": {"dtype": "U8", "shape": [1], "data_offsets": [3, 4]}}, b"\0" * 4)),
    ("duplicate_name", lambda p: header_file(p, b'{"x": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, '
                                             b'"x": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}}', b"\0\0")),
]


@pytest.mark.parametrize("code,make", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_checkpoints_raise_checkpoint_errors_naming_the_file(path, code, make, hipcpu):
    make(path)
    live = hipcpu.live()
    with pytest.raises(hipfile.CheckpointError) as e:
        load_plain(path)
    assert e.value.code == code and e.value.file == path
    assert str(e.value).startswith(f"{path}: ")
    assert isinstance(e.value, ValueError)
    assert hipcpu.live() == live  # nothing allocated


def test_a_missing_file_is_a_hipfile_error_with_enoent(path):
    with pytest.raises(hipfile.Error) as e:
        load_plain(path)
    assert e.value.errno == 2 and str(e.value).startswith(path)


def test_save_from_numpy_and_device_tensors_matches_the_reference_reader(path):
    arrays = {"f": np.arange(12, dtype=np.float32).reshape(3, 4), "i": np.array([-1, 2], dtype=np.int64),
              "b": np.array([True, False, True]), "u": np.arange(5, dtype=np.uint8), "s": np.array(7, dtype=np.int16),
              "e": np.zeros((0, 2), dtype=np.float64)}
    dev = hipfile.DeviceBuffer(8)
    dev.copy_from_host(b"\x01\x00\x02\x00\x03\x00\x04\x00")
    tensors = dict(arrays, bf=hipfile.Tensor(dev, 0, "BF16", (2, 2)))
    hipfile.save_safetensors(tensors, path, metadata={"format": "np"})
    got, metadata = reference_read(path)
    assert metadata == {"format": "np"}
    kinds = {"f": "F32", "i": "I64", "b": "BOOL", "u": "U8", "s": "I16", "e": "F64"}
    for name, arr in arrays.items():
        assert got[name] == (kinds[name], arr.shape, arr.tobytes())
    assert got["bf"] == ("BF16", (2, 2), b"\x01\x00\x02\x00\x03\x00\x04\x00")
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
    assert n % 8 == 0  # the data section starts 8-byte aligned, as safetensors writes it


def test_save_then_load_round_trip(path):
    src = {f"layer{i}.w": np.random.default_rng(i).standard_normal((17, i + 1)).astype(np.float16) for i in range(5)}
    hipfile.save_safetensors(src, path)
    got = load_plain(path)
    for name, arr in src.items():
        assert np.array_equal(got[name].to_host(), arr)
    again = path + ".again"
    try:
        hipfile.save_safetensors(got, again)  # device tensors written straight back
        assert reference_read(again) == reference_read(path)
    finally:
        os.unlink(again)


def test_save_errors(path):
    with pytest.raises(TypeError, match="metadata must be a dict of str to str"):
        hipfile.save_safetensors({}, path, metadata={"a": 1})
    with pytest.raises(TypeError, match="tensor names are str"):
        hipfile.save_safetensors({1: np.zeros(1)}, path)
    with pytest.raises(TypeError, match="has no dtype and shape"):
        hipfile.save_safetensors({"x": b"abc"}, path)
    with pytest.raises(ValueError, match="dtype object has no safetensors equivalent"):
        hipfile.save_safetensors({"x": np.array(["a"], dtype=object)}, path)
    with pytest.raises(ValueError, match="not C-contiguous"):
        hipfile.save_safetensors({"x": np.zeros((4, 4), dtype=np.float32).T}, path)
    with pytest.raises(hipfile.CheckpointError) as e:
        hipfile.save_safetensors({"__metadata__": np.zeros(1, dtype=np.uint8)}, path)
    assert e.value.code == "invalid_argument"
    assert not os.path.exists(path)  # nothing written under the name


NOT_REGULAR = ", not a regular file: a checkpoint replaces only a regular file or takes a missing name"
SAVERS = pytest.mark.parametrize("save", [hipfile.save_safetensors, hipfile.safetensors.save_file],
                                 ids=["save_safetensors", "save_file"])


@pytest.fixture
def short_dir():
    """A folder with a short path: a Unix socket's name holds at most 107 bytes."""
    d = tempfile.mkdtemp(prefix="hf-", dir="/tmp")
    yield d
    shutil.rmtree(d)


def expect_refused(save, target, what):
    """save() at target is refused with what, the node stays what it was and nothing is added."""
    folder = os.path.dirname(target.rstrip("/"))
    kind, before = stat.S_IFMT(os.lstat(target).st_mode), sorted(os.listdir(folder))
    with pytest.raises(hipfile.CheckpointError) as e:
        save({"x": np.zeros(4, np.float32)}, target)
    assert e.value.code == "invalid_argument" and e.value.file == target
    assert str(e.value) == f"{target}: {what}"
    assert stat.S_IFMT(os.lstat(target).st_mode) == kind
    assert sorted(os.listdir(folder)) == before


@SAVERS
def test_save_refuses_a_fifo_socket_directory_or_link_before_writing(short_dir, save):
    fifo, sock, sub = (os.path.join(short_dir, n) for n in ("fifo", "sock", "sub"))
    os.mkfifo(fifo)
    expect_refused(save, fifo, "is a FIFO" + NOT_REGULAR)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(sock)
    expect_refused(save, sock, "is a socket" + NOT_REGULAR)
    os.mkdir(sub)
    expect_refused(save, sub, "is a directory" + NOT_REGULAR)
    target = os.path.join(short_dir, "target.safetensors")
    save({"t": np.arange(3, dtype=np.uint8)}, target)
    kept = open(target, "rb").read()
    for name, to in (("link", "target.safetensors"), ("dangling", "missing"), ("null", "/dev/null")):
        os.symlink(to, os.path.join(short_dir, name))
        expect_refused(save, os.path.join(short_dir, name), "is a symbolic link: a checkpoint neither replaces a "
                       "link nor is written through one (name the file it points to)")
    assert open(target, "rb").read() == kept and not os.path.exists(os.path.join(short_dir, "missing"))


@SAVERS
def test_save_refuses_character_and_block_devices(short_dir, save):
    if os.geteuid() != 0:
        pytest.skip("not root: mknod of a device node needs CAP_MKNOD")
    null = os.path.join(short_dir, "null")
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null
    except PermissionError as e:
        pytest.skip(f"mknod refused ({e.strerror}): no CAP_MKNOD here")
    expect_refused(save, null, "is a character device" + NOT_REGULAR)
    block = os.path.join(short_dir, "block")
    os.mknod(block, 0o600 | stat.S_IFBLK, os.makedev(7, 200))
    expect_refused(save, block, "is a block device" + NOT_REGULAR)


def test_a_tensor_parallel_slice_of_a_dimension_above_2_63_does_not_wrap():
    slice_of = hipfile._hipfile._tensor_parallel_slice
    assert slice_of((2**64 - 1,), "column", 1, 2) == (0, 2**63, 2**64 - 1)
    assert slice_of((2**64 - 1,), "column", 0, 2) == (0, 0, 2**63)
    assert slice_of((2**64 - 1, 4), "vocabulary", 2, 3) == (0, 2 * ((2**64 - 1) // 3), 2**64 - 1)


def test_a_header_may_start_with_json_whitespace(path):
    body = b'{"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}'
    for lead in (b" ", b"\t\n", b"\r\n \t"):
        header = lead + body + b"  "
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(header)) + header + b"abcd")
        assert load_plain(path)["x"].to_bytes() == b"abcd", lead
    header = b"\x0c" + body  # a form feed is whitespace to C, not to JSON
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + b"abcd")
    with pytest.raises(hipfile.CheckpointError) as e:
        load_plain(path)
    assert e.value.code == "header_not_object"


def test_as_torch_true_needs_pytorch(path):
    hipfile.save_safetensors({"a": np.arange(4, dtype=np.float32)}, path)
    try:
        import torch
    except ImportError:
        with pytest.raises(ImportError):
            hipfile.load_safetensors(path, as_torch=True)
        return
    if not torch.cuda.is_available():  # a CPU build: refused before reading
        with pytest.raises(RuntimeError, match="cannot hold memory on device 0"):
            hipfile.load_safetensors(path, as_torch=True)
        return
    got = hipfile.load_safetensors(path, as_torch=True)
    assert type(got["a"]).__module__.startswith("torch")
    assert got["a"].cpu().tolist() == [0.0, 1.0, 2.0, 3.0]


def fake_torch(available, count=0, current=0):
    """A stand-in for an importable PyTorch: CPU-only (available=False) or one whose CUDA/ROCm
    runtime sees `count` devices with `current` selected."""
    torch = types.ModuleType("torch")
    torch.__version__ = "2.5.1+rocm6.2" if available else "2.5.1+cpu"
    torch.cuda = types.SimpleNamespace(is_available=lambda: available, device_count=lambda: count,
                                       current_device=lambda: current)
    return torch


def test_a_cpu_only_torch_gives_hipfile_tensors_by_default(path, monkeypatch):
    reference_write(path, [("x", "U8", (4,), b"abcd")])
    monkeypatch.setitem(sys.modules, "torch", fake_torch(available=False))
    got = hipfile.load_safetensors(path, device=0)
    assert isinstance(got["x"], hipfile.Tensor) and got["x"].to_bytes() == b"abcd"


def test_a_torch_that_lacks_the_device_gives_hipfile_tensors_by_default(path, monkeypatch):
    if hipfile.device_count() < 2:
        pytest.skip("needs two devices")
    reference_write(path, [("x", "U8", (4,), b"abcd")])
    monkeypatch.setitem(sys.modules, "torch", fake_torch(available=True, count=1))
    got = hipfile.load_safetensors(path, device="cuda:1")
    assert isinstance(got["x"], hipfile.Tensor) and got["x"].device == 1 and got["x"].to_bytes() == b"abcd"


def test_as_torch_true_without_a_torch_device_is_refused_before_reading(path, monkeypatch, hipcpu):
    monkeypatch.setitem(sys.modules, "torch", fake_torch(available=False))
    live = hipcpu.live()
    # The file does not exist: reading first would raise hipfile.Error (ENOENT) instead.
    with pytest.raises(RuntimeError) as e:
        hipfile.load_safetensors(path, device=0, as_torch=True)
    assert str(e.value) == ("hipfile: as_torch=True, but PyTorch 2.5.1+cpu cannot hold memory on device 0 "
                            "(torch.cuda.is_available() is False): pass as_torch=False for hipfile.Tensor, "
                            "or install a ROCm or CUDA build of PyTorch")
    assert hipcpu.live() == live


def test_a_device_without_an_index_is_the_current_one(path, monkeypatch, hipcpu):
    if hipfile.device_count() < 2:
        pytest.skip("needs two devices")
    set_device = getattr(hipcpu.lib, "hipSetDevice", None)
    if set_device is None:
        pytest.skip("hip-cpu's hipSetDevice is not exported here (a wheel)")
    reference_write(path, [("x", "U8", (4,), b"abcd")])
    monkeypatch.setitem(sys.modules, "torch", None)  # no PyTorch: the HIP current device counts
    assert set_device(1) == 0
    try:
        for device in ("cuda", "hip", types.SimpleNamespace(type="cuda", index=None)):
            assert hipfile.load_safetensors(path, device=device)["x"].device == 1, device
    finally:
        set_device(0)
    assert hipfile.load_safetensors(path, device="cuda")["x"].device == 0


def test_a_device_without_an_index_is_torchs_current_one_when_torch_is_used():
    from hipfile import _safetensors

    torch = fake_torch(available=True, count=2, current=1)
    assert _safetensors._device_index("cuda", torch) == 1
    assert _safetensors._device_index("cuda:0", torch) == 0
    assert _safetensors._device_index(types.SimpleNamespace(type="cuda", index=None), torch) == 1


FAIL_ONE_ALLOCATION = r"""
import gc, sys, _testcapi
k, index, tests = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.path.insert(0, tests)
import hipfile
from conftest import HipCpu
hip = HipCpu()
gc.collect()
live = hip.live()
_testcapi.set_nomemory(k, k + 1)
try:
    result = hipfile._hipfile._load_safetensors(index, 0, None)
except Exception:
    result = None
finally:
    _testcapi.remove_mem_hooks()
done = result is not None
del result
gc.collect()
print("done" if done else "failed", hip.live() - live)
"""


def test_a_python_allocation_failure_while_wrapping_frees_the_device_memory(path, hipcpu):
    """Fails the k-th Python allocation of a two-shard load, for every k until the load
    succeeds, each in a fresh interpreter: wherever the load stops, it must leave no device
    allocation behind. (An allocation failure inside pybind11's instance creation crashes the
    interpreter, in pybind11 itself: those k are passed over.)"""
    pytest.importorskip("_testcapi", reason="needs CPython's _testcapi (set_nomemory)")
    base, name = os.path.split(path)
    index = path + ".index.json"
    shards = [path + ".shard0", path + ".shard1"]
    try:
        reference_write(shards[0], [("a", "F32", (8,), values("F32", (8,), 1))])
        reference_write(shards[1], [("b", "U8", (3,), b"abc")])
        with open(index, "w") as f:
            json.dump({"metadata": {}, "weight_map": {"a": name + ".shard0", "b": name + ".shard1"}}, f)
        tests = os.path.dirname(os.path.abspath(__file__))
        leaks, failures_seen = [], 0
        for k in range(300):
            child = subprocess.run([sys.executable, "-c", FAIL_ONE_ALLOCATION, str(k), index, tests],
                                   capture_output=True, text=True, timeout=60)
            if child.returncode != 0:
                continue
            outcome, leaked = child.stdout.split()
            if int(leaked) != 0:
                leaks.append((k, int(leaked)))
            if outcome == "done":
                break
            failures_seen += 1
        else:
            pytest.fail("the load never succeeded")
        assert failures_seen > 0
        assert leaks == [], f"(failing allocation, device allocations left behind): {leaks}"
    finally:
        for s in shards:
            if os.path.exists(s):
                os.unlink(s)


def test_last_load_stats_add_up_to_the_call_and_name_the_library_phases(tmp_path):
    path = str(tmp_path / "timed.safetensors")
    raw = pattern(24 << 20, 5).tobytes()
    reference_write(path, [("a", "U8", (len(raw),), raw), ("b", "F32", (2,), pattern(8, 6).tobytes())])
    parts = ("open", "plan", "allocate", "register", "read", "finish")
    for _ in range(2):
        t = time.perf_counter()
        out = hipfile._hipfile._load_safetensors(path, 0, None)
        wall = time.perf_counter() - t
        stats = out[2]
        assert all(stats[k] >= 0 for k in parts)
        # The phases add up to the total; the wall around the call also holds the binding's own
        # work and whatever the scheduler did, so it only bounds the total from above.
        assert sum(stats[k] for k in parts) == pytest.approx(stats["total"], rel=1e-6)
        assert stats["total"] <= wall
        assert stats["bytes_read"] == len(raw) + 8 and stats["reads"] >= 1
        names = [hipfile._hipfile.stats()["phases"].keys()]
        assert set(stats["library"]) == set(names[0])
        assert stats["library"]["file_registration"]["count"] == 1
        # Device memory: every byte through the engine (statistics level 1, the default).
        assert stats["paths"] == {"engine": len(raw) + 8, "host": 0, "cufile": 0, "amd": 0}
        del out
    loaded = load_plain(path, device=0)
    assert loaded["a"].to_bytes() == raw
    last = hipfile.last_load_stats()
    assert set(parts) <= set(last) and last["library"]["file_registration"]["count"] == 1


def test_stats_phases_count_the_setup_of_a_fresh_driver(tmp_path):
    script = """
import hipfile, sys
path = sys.argv[1]
with open(path, "wb") as f:
    f.write(bytes(range(256)) * 8192)
before = hipfile.stats()["phases"]
assert all(p["count"] == 0 for p in before.values()), before
f = hipfile.File(path, "r")
buf = hipfile.DeviceBuffer(1 << 21, 0)
assert f.read(buf, 1 << 21, 0) == 1 << 21
phases = hipfile.stats()["phases"]
for name in ("driver_open", "engine_start", "file_registration", "pinned_staging"):
    assert phases[name]["count"] >= 1, (name, phases)
    assert 0 < phases[name]["first_seconds"] <= phases[name]["seconds"], (name, phases)
assert phases["teardown"]["count"] == 0
hipfile.stats_reset()
assert all(p["count"] == 0 and p["seconds"] == 0 for p in hipfile.stats()["phases"].values())
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", script, str(tmp_path / "f.bin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
