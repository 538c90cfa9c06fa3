# SPDX-License-Identifier: MIT
"""hipfile.load_safetensors_into: tensors and slices read into destinations the caller owns,
compared with an independent parse of the file (st_files); wrong destinations refused before
anything is written, and nothing written outside a destination."""

import numpy as np
import pytest

import hipfile
import st_files
from st_files import DTYPES

if not hasattr(hipfile._hipfile, "_Checkpoint"):
    pytest.skip("built without nlohmann-json", allow_module_level=True)

GUARD = 0xA5


class Arena:
    """Destinations carved from one host array with guard bytes between them (and around)."""

    def __init__(self, sizes, guard=64):
        self.guard = guard
        self.spans = []
        offset = guard
        for n in sizes:
            offset += -offset % 8  # aligned for any dtype
            self.spans.append((offset, n))
            offset += n + guard
        self.memory = np.full(offset + guard, GUARD, dtype=np.uint8)

    def view(self, i, dtype, shape):
        start, n = self.spans[i]
        return self.memory[start:start + n].view(dtype).reshape(shape)

    def guards_intact(self):
        mask = np.ones(self.memory.size, dtype=bool)
        for start, n in self.spans:
            mask[start:start + n] = False
        return bool(np.all(self.memory[mask] == GUARD))


def test_every_dtype_scalar_empty_and_odd_shapes_byte_for_byte(path):
    specs = [(f"{d.lower()}_{k}", d, shape) for d in DTYPES for k, shape in enumerate([(3, 5), (), (0, 4), (7,)])]
    st_files.make(path, specs)
    expect = st_files.parsed_arrays(path)
    arena = Arena([v.nbytes for v in expect.values()])
    dests = {name: arena.view(i, DTYPES[st_files.parse(path)[0][name][0]][1], v.shape)
             for i, (name, v) in enumerate(expect.items())}
    summary = hipfile.load_safetensors_into(path, dests)
    for name, v in expect.items():
        assert dests[name].tobytes() == v.tobytes(), name
    assert arena.guards_intact()
    assert summary["bytes"] == sum(v.nbytes for v in expect.values())
    assert summary["missing"] == [] and summary["unexpected"] == []
    assert hipfile.last_load_stats() is summary["stats"]
    assert summary["stats"]["bytes_read"] >= summary["bytes"]
    # Host memory: every byte placed there, read by the library's host path.
    assert summary["devices"] == {-1: summary["bytes"]}
    assert summary["stats"]["paths"]["host"] == summary["bytes"]


def test_the_summary_names_the_device_each_byte_went_to(path):
    if hipfile.device_count() < 2:
        pytest.skip(f"needs two devices (a destination on device 1); {hipfile.device_count()} found")
    st_files.make(path, [("a", "F32", (6, 5)), ("b", "U8", (9,))])
    expect = st_files.parsed_arrays(path)
    on_device = hipfile.DeviceBuffer(expect["a"].nbytes, 1)
    host = np.zeros(9, dtype=np.uint8)
    summary = hipfile.load_safetensors_into(path, {"a": on_device, "b": host})
    assert summary["devices"] == {1: expect["a"].nbytes, -1: 9}
    assert summary["stats"]["paths"]["engine"] == expect["a"].nbytes
    assert host.tobytes() == expect["b"].tobytes()
    assert bytes(on_device.copy_to_host()) == expect["a"].tobytes()


def ranges(n):
    """Full, interior, first, last, empty at both ends and in the middle: the distinct ones."""
    found = [(0, n), (1, max(n - 1, 1)), (0, 1), (n - 1, n), (0, 0), (n, n), (n // 2, n // 2)]
    return sorted({r for r in found if 0 <= r[0] <= r[1] <= n})


SHAPES = [(7,), (3, 5), (5, 1, 3), (3, 4, 5, 3), (2, 3, 1, 5)]


@pytest.mark.parametrize("dtype", ["F32", "I16", "U8", "F64"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_slices_of_every_dimension_match_numpy_slicing_and_stay_inside(path, dtype, shape):
    st_files.make(path, [("before", "U8", (3,)), ("t", dtype, shape), ("after", "I32", (5,))])
    full = st_files.parsed_arrays(path)["t"]
    for dim, n in enumerate(shape):
        for start, stop in ranges(n):
            want = full[(slice(None),) * dim + (slice(start, stop),)]
            arena = Arena([want.nbytes])
            out = arena.view(0, want.dtype, want.shape)
            hipfile.load_safetensors_into(path, {"t": (out, hipfile.Slice(dim, start, stop))}, strict=False)
            assert out.tobytes() == want.tobytes(), (dim, start, stop)
            assert arena.guards_intact(), (dim, start, stop)


def test_a_slice_may_be_a_plain_tuple_and_into_device_memory(path):
    st_files.make(path, [("w", "F32", (6, 9))])
    full = st_files.parsed_arrays(path)["w"]
    want = full[:, 2:7]
    buf = hipfile.DeviceBuffer(want.nbytes + 64)
    buf.copy_from_host(np.full(want.nbytes + 64, GUARD, dtype=np.uint8))
    dest = hipfile.Tensor(buf, 32, "F32", want.shape)
    hipfile.load_safetensors_into(path, {"w": (dest, (1, 2, 7))})
    assert dest.to_bytes() == want.tobytes()
    host = np.frombuffer(buf.copy_to_host(), dtype=np.uint8)
    assert np.all(host[:32] == GUARD) and np.all(host[32 + want.nbytes:] == GUARD)


def test_a_device_buffer_takes_the_raw_bytes(path):
    st_files.make(path, [("b", "BF16", (4, 3))])
    raw = st_files.parse(path)[0]["b"][2]
    buf = hipfile.DeviceBuffer(len(raw))
    hipfile.load_safetensors_into(path, {"b": buf})
    assert bytes(buf.copy_to_host()) == raw


def test_raw_bit_containers_take_bf16_and_float8(path):
    st_files.make(path, [("b", "BF16", (4, 3)), ("f", "F8_E4M3", (5,))])
    expect = st_files.parsed_arrays(path)
    dests = {"b": np.empty((4, 3), np.uint16), "f": np.empty(5, np.uint8)}
    hipfile.load_safetensors_into(path, dests)
    assert dests["b"].tobytes() == expect["b"].tobytes() and dests["f"].tobytes() == expect["f"].tobytes()


def refused(path, dests, exc=hipfile.CheckpointError, **kwargs):
    """The error load_safetensors_into raises, after checking that no destination changed."""
    before = {k: np.array(v[0] if isinstance(v, tuple) else v, copy=True) for k, v in dests.items()}
    with pytest.raises(exc) as info:
        hipfile.load_safetensors_into(path, dests, **kwargs)
    for k, v in dests.items():
        assert np.array_equal(v[0] if isinstance(v, tuple) else v, before[k]), f"{k} was written"
    return info.value


@pytest.fixture
def two(path):
    st_files.make(path, [("a", "F32", (4, 6)), ("b", "I64", (3,))])
    return path


def poisoned(shape, dtype):
    return np.full(shape, 7, dtype=dtype)


def test_a_destination_of_the_wrong_shape_is_a_shape_mismatch_and_nothing_is_read(two):
    e = refused(two, {"a": poisoned((6, 4), "<f4"), "b": poisoned(3, "<i8")})
    assert (e.code, e.tensor) == ("shape_mismatch", "a")
    assert "a" in str(e) and isinstance(e, ValueError)


def test_a_destination_of_the_wrong_dtype_is_a_dtype_mismatch(two):
    e = refused(two, {"a": poisoned((4, 6), "<i4"), "b": poisoned(3, "<i8")})
    assert (e.code, e.tensor) == ("dtype_mismatch", "a")


def test_a_destination_of_the_wrong_size_is_refused(two):
    e = refused(two, {"a": bytearray(4 * 6 * 4 - 1), "b": poisoned(3, "<i8")})
    assert (e.code, e.tensor) == ("shape_mismatch", "a")


def test_a_slice_destination_of_the_whole_tensors_shape_is_refused(two):
    e = refused(two, {"a": (poisoned((4, 6), "<f4"), hipfile.Slice(1, 0, 3)), "b": poisoned(3, "<i8")})
    assert (e.code, e.tensor) == ("shape_mismatch", "a")


@pytest.mark.parametrize("sl", [(2, 0, 1), (0, 3, 5), (1, 4, 2)], ids=["no-such-dim", "past-the-end", "reversed"])
def test_a_slice_outside_the_tensor_is_an_invalid_slice(two, sl):
    e = refused(two, {"a": (poisoned((1, 6), "<f4"), sl), "b": poisoned(3, "<i8")})
    assert (e.code, e.tensor) == ("invalid_slice", "a")


def test_a_non_contiguous_or_read_only_destination_is_a_value_error(two):
    with pytest.raises(ValueError, match="not C-contiguous"):
        hipfile.load_safetensors_into(two, {"a": np.empty((6, 4), "<f4").T, "b": np.empty(3, "<i8")})
    ro = np.empty((4, 6), "<f4")
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        hipfile.load_safetensors_into(two, {"a": ro, "b": np.empty(3, "<i8")})


def test_bad_arguments_are_type_and_value_errors(two):
    with pytest.raises(TypeError, match="mapping"):
        hipfile.load_safetensors_into(two, [np.empty(3)])
    with pytest.raises(TypeError, match="slice"):
        hipfile.load_safetensors_into(two, {"a": (np.empty((4, 6), "<f4"), "rows"), "b": np.empty(3, "<i8")})
    with pytest.raises(ValueError, match="parallel_reads"):
        hipfile.load_safetensors_into(two, {"a": np.empty((4, 6), "<f4"), "b": np.empty(3, "<i8")}, parallel_reads=0)
    with pytest.raises(TypeError, match="progress"):
        hipfile.load_safetensors_into(two, {"a": np.empty((4, 6), "<f4"), "b": np.empty(3, "<i8")}, progress=3)


def test_strict_refuses_missing_and_unexpected_names(two):
    e = refused(two, {"a": poisoned((4, 6), "<f4"), "b": poisoned(3, "<i8"), "c": poisoned(2, "<f4")},
                exc=hipfile.MissingTensorError)
    assert (e.code, e.tensor) == ("no_such_tensor", "c") and isinstance(e, KeyError)
    e = refused(two, {"a": poisoned((4, 6), "<f4")})
    assert (e.code, e.tensor) == ("unexpected_tensor", "b")


def test_allow_missing_and_unexpected_report_what_they_skipped(two):
    expect = st_files.parsed_arrays(two)
    a = np.empty((4, 6), "<f4")
    summary = hipfile.load_safetensors_into(two, {"a": a, "zz": np.empty(2, "<f4")}, strict=False)
    assert summary["missing"] == ["zz"] and summary["unexpected"] == ["b"]
    assert a.tobytes() == expect["a"].tobytes() and summary["bytes"] == a.nbytes
    # each override alone: allow_missing keeps refusing an unexpected tensor
    e = refused(two, {"a": poisoned((4, 6), "<f4"), "zz": poisoned(2, "<f4")}, allow_missing=True)
    assert e.code == "unexpected_tensor"
    summary = hipfile.load_safetensors_into(two, {"a": a}, allow_unexpected=True)
    assert summary["unexpected"] == ["b"]


def test_a_progress_callback_sees_monotone_bytes_ending_at_the_total(path):
    specs = [(f"t{i}", "F32", (64, 33 + i)) for i in range(12)]
    st_files.make(path, specs)
    dests = {n: np.empty(s, "<f4") for n, _, s in specs}
    calls = []
    summary = hipfile.load_safetensors_into(path, dests, progress=lambda done, total: calls.append((done, total)),
                                            parallel_reads=3)
    assert calls, "the callback was not called"
    totals = {t for _, t in calls}
    assert totals == {summary["bytes"]}
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == summary["bytes"]


def test_an_exception_in_the_progress_callback_is_raised_after_the_reads(path):
    specs = [(f"t{i}", "I32", (100,)) for i in range(4)]
    st_files.make(path, specs)
    expect = st_files.parsed_arrays(path)
    dests = {n: np.empty(s, "<i4") for n, _, s in specs}

    def boom(done, total):
        raise RuntimeError(f"stop at {done}")

    with pytest.raises(RuntimeError, match="stop at"):
        hipfile.load_safetensors_into(path, dests, progress=boom)
    for n, v in expect.items():
        assert dests[n].tobytes() == v.tobytes()  # the reads went on to the end


def test_on_filled_names_each_destination_once_when_its_bytes_are_there(path):
    specs = [(f"t{i}", "F32", (40, 17 + i)) for i in range(9)] + [("empty", "F32", (0, 3))]
    st_files.make(path, specs)
    expect = st_files.parsed_arrays(path)
    dests = {n: np.zeros(s, "<f4") for n, _, s in specs}
    dests["absent"] = np.zeros(3, "<f4")
    seen = {}

    def filled(name):
        seen[name] = dests[name].tobytes()  # complete at the call, whatever is still being read

    hipfile.load_safetensors_into(path, dests, on_filled=filled, allow_missing=True, parallel_reads=3)
    assert sorted(seen) == sorted(n for n, _, _ in specs)  # once each; never the missing one
    for n, v in expect.items():
        assert seen[n] == v.tobytes(), n


def test_an_exception_in_on_filled_is_raised_after_the_reads(path):
    specs = [(f"t{i}", "I16", (50,)) for i in range(5)]
    st_files.make(path, specs)
    expect = st_files.parsed_arrays(path)
    dests = {n: np.empty(s, "<i2") for n, _, s in specs}
    calls = []

    def boom(name):
        calls.append(name)
        raise KeyError(name)

    with pytest.raises(KeyError):
        hipfile.load_safetensors_into(path, dests, on_filled=boom)
    assert len(calls) == 1  # after the first exception the callback is not called again
    for n, v in expect.items():
        assert dests[n].tobytes() == v.tobytes()
    with pytest.raises(TypeError, match="on_filled must be a callable"):
        hipfile.load_safetensors_into(path, dests, on_filled="t0")


def test_progress_true_draws_one_line_on_stderr(path, capsys):
    st_files.make(path, [("a", "U8", (3000,))])
    hipfile.load_safetensors_into(path, {"a": np.empty(3000, np.uint8)}, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\r") and err.endswith("\n") and err.count("\n") == 1
    last = err.rstrip("\n").split("\r")[-1]
    assert "100.0%" in last and "3.00 kB / 3.00 kB" in last and "GB/s" in last


def test_an_index_of_two_shards_fills_from_both(path):
    import json
    import os

    first, second = path + ".1.safetensors", path + ".2.safetensors"
    try:
        st_files.make(first, [("a", "F16", (3, 3))])
        st_files.make(second, [("b", "U16", (5,))], seed=9)
        with open(path + ".index.json", "w") as f:
            json.dump({"weight_map": {"a": os.path.basename(first), "b": os.path.basename(second)}}, f)
        a, b = np.empty((3, 3), "<f2"), np.empty(5, "<u2")
        hipfile.load_safetensors_into(path + ".index.json", {"a": a, "b": (b, (0, 0, 5))})
        assert a.tobytes() == st_files.parsed_arrays(first)["a"].tobytes()
        assert b.tobytes() == st_files.parsed_arrays(second)["b"].tobytes()
        c, d = np.empty((1, 3), "<f2"), np.empty(5, "<u2")
        hipfile.load_safetensors_into([first, second], {"a": (c, (0, 2, 3)), "b": d})
        assert c.tobytes() == st_files.parsed_arrays(first)["a"][2:].tobytes()
    finally:
        for p in (first, second):
            if os.path.exists(p):
                os.unlink(p)


def torch_or_skip():
    try:
        import torch
    except ImportError:
        pytest.skip("PyTorch is not importable")
    return torch


def test_torch_cpu_destinations_bf16_included(path):
    torch = torch_or_skip()
    st_files.make(path, [("b", "BF16", (5, 7)), ("f", "F32", (3, 4)), ("h", "F16", (9,)), ("i", "I64", (2,))])
    expect = st_files.parsed_arrays(path)
    dests = {"b": torch.empty((5, 7), dtype=torch.bfloat16), "f": torch.empty((3, 4)),
             "h": torch.empty(9, dtype=torch.float16), "i": torch.empty(2, dtype=torch.int64)}
    hipfile.load_safetensors_into(path, dests)
    assert dests["b"].view(torch.int16).numpy().tobytes() == expect["b"].tobytes()
    for n in "fhi":
        assert dests[n].numpy().tobytes() == expect[n].tobytes()
    part = torch.empty((5, 3), dtype=torch.bfloat16)
    hipfile.load_safetensors_into(path, {"b": (part, hipfile.Slice(1, 4, 7))}, strict=False)
    assert part.view(torch.int16).numpy().tobytes() == expect["b"][:, 4:7].tobytes()


def test_torch_destinations_are_checked(path):
    torch = torch_or_skip()
    st_files.make(path, [("f", "F32", (3, 4))])
    with pytest.raises(hipfile.CheckpointError) as info:
        hipfile.load_safetensors_into(path, {"f": torch.empty((3, 4), dtype=torch.float64)})
    assert info.value.code == "dtype_mismatch"
    with pytest.raises(ValueError, match="not C-contiguous"):
        hipfile.load_safetensors_into(path, {"f": torch.empty((4, 3)).t()})


@pytest.mark.parametrize("dtype, bits", [("F4", 4), ("F6_E2M3", 6), ("F6_E3M2", 6)])
def test_packed_dtypes_fill_byte_containers_and_refuse_slices(path, dtype, bits):
    shape = (6, 4)
    raw = bytes(range(6 * 4 * bits // 8))
    st_files.write(path, [("p", dtype, shape, raw)])
    out = np.empty(len(raw), np.uint8)
    hipfile.load_safetensors_into(path, {"p": out})
    assert out.tobytes() == raw
    e = refused(path, {"p": (np.zeros(len(raw) // 2, np.uint8), (0, 0, 3))})
    assert (e.code, e.tensor) == ("invalid_slice", "p")
