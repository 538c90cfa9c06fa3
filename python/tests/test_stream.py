# SPDX-License-Identifier: MIT
"""hipfile.stream_safetensors: every tensor once, in file order, each in device memory of its
own, compared with an independent parse of the file; the read-ahead budget."""

import gc

import pytest

import hipfile
import st_files

if not hasattr(hipfile._hipfile, "_Checkpoint"):
    pytest.skip("built without nlohmann-json", allow_module_level=True)

# File order differs from name order: a stream must follow the file.
SPECS = [("zeta", "F32", (64, 33)), ("alpha", "BF16", (17, 5)), ("empty", "I32", (0, 3)), ("mid", "U8", (1001,)),
         ("scalar", "F64", ()), ("big", "I16", (300, 41))]


def stream(path, **kwargs):
    return hipfile.stream_safetensors(path, device="cuda:0", as_torch=False, **kwargs)


@pytest.fixture
def ckpt(path):
    st_files.make(path, SPECS)
    return path


def test_every_tensor_once_in_file_order_byte_for_byte(ckpt):
    expect, _ = st_files.parse(ckpt)
    got = list(stream(ckpt, budget=1 << 20))
    assert [n for n, _ in got] == [s[0] for s in SPECS]
    for name, t in got:
        dtype, shape, raw = expect[name]
        assert isinstance(t, hipfile.Tensor)
        assert (t.dtype, t.shape, t.nbytes, t.device) == (dtype, shape, len(raw), 0)
        assert t.to_bytes() == raw, name


def test_each_tensor_has_memory_of_its_own(ckpt):
    got = dict(stream(ckpt))
    buffers = [t._buffer for t in got.values() if t.nbytes]
    assert len({id(b) for b in buffers}) == len(buffers)
    assert all(t._offset == 0 and t._buffer.nbytes == t.nbytes for t in got.values() if t.nbytes)


def test_a_budget_below_the_largest_tensor_is_refused_at_the_call(ckpt):
    largest = 300 * 41 * 2
    with pytest.raises(hipfile.CheckpointError) as info:
        stream(ckpt, budget=largest - 1)
    assert info.value.code == "invalid_argument" and "big" in str(info.value)
    names = [n for n, _ in stream(ckpt, budget=largest)]  # exactly the largest is enough
    assert names == [s[0] for s in SPECS]


def test_names_select_in_file_order_and_a_missing_one_is_a_key_error(ckpt):
    assert [n for n, _ in stream(ckpt, names=["big", "alpha"])] == ["alpha", "big"]
    assert [n for n, _ in stream(ckpt, names="mid")] == ["mid"]
    with pytest.raises(hipfile.MissingTensorError) as info:
        stream(ckpt, names=["alpha", "nope"])
    assert isinstance(info.value, KeyError) and info.value.tensor == "nope"


@pytest.mark.parametrize("budget", [0, -5, 1.5, True])
def test_a_budget_must_be_a_positive_int(ckpt, budget):
    with pytest.raises(ValueError, match="budget"):
        stream(ckpt, budget=budget)


def test_the_stream_keeps_its_checkpoint_alive(ckpt):
    expect, _ = st_files.parse(ckpt)
    s = hipfile._hipfile._Checkpoint(ckpt).stream(0, None, 0, 2)
    gc.collect()  # the _Checkpoint has no other reference now
    seen = [(name, dtype, shape, None if mem is None else bytes(mem.copy_to_host())) for name, dtype, shape, mem in s]
    assert [x[0] for x in seen] == list(expect)
    for name, dtype, shape, raw in seen:
        assert (dtype, shape, raw or b"") == expect[name]
    with pytest.raises(StopIteration):
        next(s)


def test_the_binding_reports_size_budget_and_stats(ckpt):
    s = hipfile._hipfile._Checkpoint(ckpt).stream(0, ["zeta", "mid"], 1 << 20, 1)
    assert len(s) == 2 and s.budget == 1 << 20
    list(s)
    assert s.stats()["bytes_read"] >= 64 * 33 * 4 + 1001
    assert 0 < s.peak_held <= 1 << 20


def test_dropping_the_tensors_frees_their_memory(ckpt, hipcpu):
    before = hipcpu.live(0)
    got = list(stream(ckpt))
    assert hipcpu.live(0) > before
    del got
    gc.collect()
    assert hipcpu.live(0) == before


def test_a_cpu_device_is_refused(ckpt):
    with pytest.raises(ValueError, match="device"):
        hipfile.stream_safetensors(ckpt, device="cpu")
