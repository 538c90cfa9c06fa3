# SPDX-License-Identifier: MIT
"""hipfile.torch.load_model on CPU PyTorch: a small language model (embedding, biased linears,
a layer norm, a persistent buffer, an lm_head tied to the embedding; odd sizes) saved with
hipfile.save_safetensors and filled back, materialized or on the meta device, compared bit for
bit with the original and with load_state_dict's own errors; tensor-parallel slices for world
sizes 2 to 4, simulated rank by rank in this process."""

import json
import os
import shutil
import uuid

import pytest

torch = pytest.importorskip("torch")

import hipfile  # noqa: E402

if not hasattr(hipfile._hipfile, "_Checkpoint"):
    pytest.skip("hipfile was built without nlohmann-json: no checkpoint support", allow_module_level=True)

import hipfile.torch as ht  # noqa: E402

VOCAB, HIDDEN, INNER = 37, 11, 13


class TinyLM(torch.nn.Module):
    def __init__(self, device=None, dtype=None, inner=INNER, gate=3):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.embed = torch.nn.Embedding(VOCAB, HIDDEN, **kw)
        self.up = torch.nn.Linear(HIDDEN, inner, **kw)
        self.norm = torch.nn.LayerNorm(inner, **kw)
        self.gate = torch.nn.Linear(inner, gate, **kw)
        self.down = torch.nn.Linear(inner, HIDDEN, **kw)
        self.lm_head = torch.nn.Linear(HIDDEN, VOCAB, bias=False, **kw)
        self.lm_head.weight = self.embed.weight
        self.register_buffer("scale", torch.linspace(0.5, 1.5, HIDDEN, device=device, dtype=dtype))

    def forward(self, ids):
        h = self.norm(self.up(self.embed(ids)))
        return self.lm_head(self.down(h) * self.scale + self.gate(h).sum(-1, keepdim=True))


def seeded(seed, **kw):
    torch.manual_seed(seed)
    model = TinyLM(**kw)
    with torch.no_grad():  # LayerNorm and the buffer start at constants: make every tensor distinct
        for t in list(model.parameters()) + list(model.buffers()):
            t.copy_(torch.randn(t.shape, dtype=torch.float32).to(t.dtype))
    return model


@pytest.fixture
def folder():
    base = os.environ.get("HIPFILE_TEST_DIR", "/var/tmp")
    path = os.path.join(base, f"hipfile-load-model-{os.getpid()}-{uuid.uuid4().hex}")
    os.makedirs(path)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def file_state(model, drop=("lm_head.weight",), dtype=None):
    """What a checkpoint of model holds: its state_dict without the tied duplicate (as Hugging
    Face saves it), optionally cast."""
    state = {k: v for k, v in model.state_dict().items() if k not in drop}
    return {k: v.to(dtype) if dtype else v for k, v in state.items()}


def save(state, folder, name="model.safetensors"):
    path = os.path.join(folder, name)
    hipfile.save_safetensors(state, path)
    return path


def assert_same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for key in sa:
        assert sa[key].dtype == sb[key].dtype, key
        assert torch.equal(sa[key], sb[key]), key


def torch_error(model, state, strict=True):
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state, strict=strict)
    return str(info.value)


# --- a materialized module -------------------------------------------------------------------

def test_materialized_module_is_filled_in_place_bit_for_bit(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = seeded(2)
    addresses = {k: v.data_ptr() for k, v in target.state_dict().items()}
    result = ht.load_model(target, path)
    assert_same_state(source, target)
    assert {k: v.data_ptr() for k, v in target.state_dict().items()} == addresses
    assert result == ([], []) and result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    assert target.lm_head.weight is target.embed.weight


def test_stats_count_the_bytes_of_every_tensor(folder):
    state = file_state(seeded(1))
    path = save(state, folder)
    result = ht.load_model(seeded(2), path)
    total = sum(v.numel() * v.element_size() for v in state.values())
    stats = result.stats
    assert stats["bytes"] == total
    assert stats["devices"] == {"cpu": total}
    assert stats["share_bytes"] == total and stats["bytes_received"] == 0
    assert stats["bytes_read"] >= total
    assert stats["seconds"] > 0 and stats["gb_per_s"] == pytest.approx(total / stats["seconds"] / 1e9)
    assert (stats["rank"], stats["world_size"]) == (0, 1)


# --- a meta module ---------------------------------------------------------------------------

def test_meta_module_is_materialized_tied_and_computes_the_same(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = TinyLM(device="meta")
    target.norm.weight.requires_grad_(False)
    result = ht.load_model(target, path, device="cpu")
    assert result == ([], [])  # lm_head.weight is absent from the file but tied: not missing
    assert all(not t.is_meta for t in target.state_dict().values())
    assert target.lm_head.weight is target.embed.weight
    assert isinstance(target.up.weight, torch.nn.Parameter) and target.up.weight.requires_grad
    assert isinstance(target.norm.weight, torch.nn.Parameter) and not target.norm.weight.requires_grad
    assert not isinstance(target.scale, torch.nn.Parameter)
    assert [n for n, _ in target.named_parameters()] == [n for n, _ in source.named_parameters()]
    assert_same_state(source, target)
    ids = torch.tensor([[0, 5, 36, 11, 7]])
    assert torch.equal(target(ids), source(ids))


def test_meta_module_default_device_is_cpu_without_cuda(folder):
    if torch.cuda.is_available():
        pytest.skip("this PyTorch has CUDA: the default device is the current CUDA device")
    path = save(file_state(seeded(1)), folder)
    target = TinyLM(device="meta")
    ht.load_model(target, path)
    assert {t.device.type for t in target.state_dict().values()} == {"cpu"}


def test_meta_buffer_outside_the_state_dict_is_an_error(folder):
    path = save(file_state(seeded(1)), folder)
    target = TinyLM(device="meta")
    target.register_buffer("positions", torch.empty(4, device="meta"), persistent=False)
    with pytest.raises(RuntimeError) as info:
        ht.load_model(target, path, device="cpu")
    assert str(info.value) == ("hipfile: buffers on the meta device that no checkpoint holds (not in the "
                               "state_dict): positions; build the model under accelerate.init_empty_weights(), "
                               "which keeps buffers real, or materialize them before load_model")
    assert target.up.weight.is_meta  # refused before anything was made or read


# --- load_state_dict's semantics -------------------------------------------------------------

def test_strict_error_is_load_state_dict_s(folder):
    source = seeded(1)
    state = file_state(source, drop=("down.bias",))
    state["extra.weight"] = torch.ones(3)
    path = save(state, folder)
    target = seeded(2)
    before = {k: v.clone() for k, v in target.state_dict().items()}
    with pytest.raises(RuntimeError) as info:
        ht.load_model(target, path)
    assert str(info.value) == ('Error(s) in loading state_dict for TinyLM:\n\t'
                               'Missing key(s) in state_dict: "down.bias". \n\t'
                               'Unexpected key(s) in state_dict: "extra.weight". ')
    with_tie = dict(state, **{"lm_head.weight": source.embed.weight})
    assert str(info.value) == torch_error(seeded(3), with_tie)
    for key, value in target.state_dict().items():  # nothing read before the check
        assert torch.equal(value, before[key]), key


def test_non_strict_returns_the_keys_and_fills_the_rest(folder):
    source = seeded(1)
    state = file_state(source, drop=("down.bias",))
    state["extra.weight"] = torch.ones(3)
    path = save(state, folder)
    target = seeded(2)
    old_bias = target.down.bias.clone()
    result = ht.load_model(target, path, strict=False)
    assert result.missing_keys == ["down.bias"] and result.unexpected_keys == ["extra.weight"]
    assert result == (["down.bias"], ["extra.weight"])
    assert repr(result) == "LoadResult(missing_keys=['down.bias'], unexpected_keys=['extra.weight'])"
    assert torch.equal(target.down.bias, old_bias)
    for key, value in state.items():
        if key != "extra.weight":
            assert torch.equal(target.state_dict()[key], value), key


def test_a_tie_absent_under_every_name_is_missing_under_every_name(folder):
    path = save(file_state(seeded(1), drop=("lm_head.weight", "embed.weight")), folder)
    result = ht.load_model(seeded(2), path, strict=False)
    assert result.missing_keys == ["embed.weight", "lm_head.weight"]
    with pytest.raises(RuntimeError) as info:
        ht.load_model(seeded(2), path)
    assert str(info.value) == ('Error(s) in loading state_dict for TinyLM:\n\t'
                               'Missing key(s) in state_dict: "embed.weight", "lm_head.weight". ')


def test_a_tie_filled_from_the_other_name(folder):
    source = seeded(1)
    path = save(file_state(source, drop=("embed.weight",)), folder)
    target = TinyLM(device="meta")
    assert ht.load_model(target, path, device="cpu") == ([], [])
    assert target.lm_head.weight is target.embed.weight
    assert torch.equal(target.embed.weight, source.embed.weight)


def test_size_mismatch_is_load_state_dict_s_even_when_not_strict(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    for strict in (True, False):
        target = seeded(2, inner=INNER + 1)
        with pytest.raises(RuntimeError) as info:
            ht.load_model(target, path, strict=strict)
        message = str(info.value)
        assert message.startswith("Error(s) in loading state_dict for TinyLM:\n\tsize mismatch for up.weight: "
                                  "copying a param with shape torch.Size([13, 11]) from checkpoint, the shape in "
                                  "current model is torch.Size([14, 11]).\n\tsize mismatch for up.bias: ")
        with_tie = dict(file_state(source), **{"lm_head.weight": source.embed.weight})
        assert message == torch_error(seeded(3, inner=INNER + 1), with_tie, strict=strict)


# --- dtypes ----------------------------------------------------------------------------------

def test_bf16_file_into_fp32_module_converts_as_load_state_dict(folder):
    source = seeded(1)
    state = file_state(source, dtype=torch.bfloat16)
    path = save(state, folder)
    expected = seeded(3)
    expected.load_state_dict(dict(state, **{"lm_head.weight": state["embed.weight"]}))
    target = seeded(2)
    addresses = {k: v.data_ptr() for k, v in target.state_dict().items()}
    ht.load_model(target, path)
    assert_same_state(expected, target)
    assert {k: v.data_ptr() for k, v in target.state_dict().items()} == addresses
    meta = TinyLM(device="meta")
    ht.load_model(meta, path, device="cpu")
    assert_same_state(expected, meta)
    assert meta.lm_head.weight is meta.embed.weight


def test_fp32_file_into_bf16_module(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = TinyLM(device="meta", dtype=torch.bfloat16)
    ht.load_model(target, path, device="cpu")
    for key, value in source.state_dict().items():
        assert target.state_dict()[key].dtype == torch.bfloat16
        assert torch.equal(target.state_dict()[key], value.to(torch.bfloat16)), key


def test_mixed_dtypes_in_one_file(folder):
    source = seeded(1)
    state = file_state(source)
    state["up.weight"] = state["up.weight"].to(torch.float16)
    state["norm.bias"] = state["norm.bias"].to(torch.bfloat16)
    path = save(state, folder)
    target = seeded(2)
    ht.load_model(target, path)
    assert torch.equal(target.up.weight, state["up.weight"].float())
    assert torch.equal(target.norm.bias, state["norm.bias"].float())
    assert torch.equal(target.down.weight, source.down.weight)


def test_non_contiguous_parameter_is_filled_through_a_copy(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = seeded(2)
    target.up.weight = torch.nn.Parameter(torch.zeros(HIDDEN, INNER).t())  # a transposed view
    assert not target.up.weight.is_contiguous()
    ht.load_model(target, path)
    assert not target.up.weight.is_contiguous()
    assert_same_state(source, target)


def test_conversion_batches_never_hold_more_than_the_largest_temporary():
    from types import SimpleNamespace

    from hipfile._filling import _batches

    sizes = [7, 3, 3, 1, 10, 2, 8, 8, 1]
    batches = list(_batches([SimpleNamespace(nbytes=n) for n in sizes]))
    assert [[j.nbytes for j in b] for b in batches] == [[7, 3], [3, 1], [10], [2, 8], [8, 1]]
    assert list(_batches([])) == []


# --- files -----------------------------------------------------------------------------------

def write_sharded(source, folder, index=True):
    """Two shards (and their index): embed and up in the first, the rest in the second."""
    state = file_state(source)
    first = {k: v for k, v in state.items() if k.startswith(("embed.", "up."))}
    second = {k: v for k, v in state.items() if k not in first}
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    for part, name in zip((first, second), names):
        save(part, folder, name)
    if index:
        weight_map = {k: names[0] if k in first else names[1] for k in state}
        with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)


def test_folder_with_an_index_and_two_shards(folder):
    source = seeded(1)
    write_sharded(source, folder)
    for where in (folder, os.path.join(folder, "model.safetensors.index.json")):
        target = TinyLM(device="meta")
        assert ht.load_model(target, where, device="cpu") == ([], [])
        assert_same_state(source, target)


def test_folder_of_shards_without_an_index(folder):
    source = seeded(1)
    write_sharded(source, folder, index=False)
    target = seeded(2)
    ht.load_model(target, folder)
    assert_same_state(source, target)


def test_folder_with_model_safetensors(folder):
    source = seeded(1)
    save(file_state(source), folder)
    save({"other": torch.ones(2)}, folder, "zz-ignored.safetensors")  # model.safetensors comes first
    target = seeded(2)
    assert ht.load_model(target, folder) == ([], [])
    assert_same_state(source, target)


def test_missing_checkpoint_and_empty_folder(folder):
    with pytest.raises(FileNotFoundError) as info:
        ht.load_model(seeded(1), os.path.join(folder, "absent.safetensors"))
    assert str(info.value) == f"hipfile: no checkpoint at {os.path.join(folder, 'absent.safetensors')!r}"
    with pytest.raises(FileNotFoundError) as info:
        ht.load_model(seeded(1), folder)
    assert str(info.value) == (f"hipfile: the folder {folder!r} holds no model.safetensors.index.json, "
                               f"model.safetensors or other .safetensors file")


# --- progress --------------------------------------------------------------------------------

def test_progress_callable_sees_every_byte(folder):
    state = file_state(seeded(1), dtype=torch.bfloat16)  # conversions: several fills
    path = save(state, folder)
    calls = []
    result = ht.load_model(seeded(2), path, progress=lambda done, total: calls.append((done, total)))
    total = result.stats["share_bytes"]
    assert result.stats["fills"] > 1
    assert calls and calls[-1] == (total, total)
    assert all(t == total for _, t in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_progress_true_draws_a_line_on_stderr(folder, capsys):
    path = save(file_state(seeded(1)), folder)
    ht.load_model(seeded(2), path, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rhipfile: ") and err.endswith("\n")
    assert "100.0%" in err.rsplit("\r", 1)[-1]


def test_progress_of_another_type_is_a_type_error(folder):
    path = save(file_state(seeded(1)), folder)
    target = TinyLM(device="meta")
    with pytest.raises(TypeError) as info:
        ht.load_model(target, path, device="cpu", progress=3)
    assert str(info.value) == "hipfile: progress must be True, False, None or a callable(done, total), not int"
    assert target.up.weight.is_meta  # refused before anything was made


# --- tensor parallel -------------------------------------------------------------------------

PLAN = {"embed.weight": "vocabulary", "lm_head.weight": "vocabulary", "up.*": "column", "gate.*": "column",
        "down.weight": "row", "*": "replicated"}
SLICED = {"embed.weight": 0, "up.weight": 0, "up.bias": 0, "gate.weight": 0, "gate.bias": 0, "down.weight": 1}


def share(length, rank, world_size):
    """Rank's [start, stop) of length under the ceil split: shares of ceil(length / world)."""
    size = -(-length // world_size)
    start = min(rank * size, length)
    return start, min(start + size, length)


def rank_model(source, rank, world_size, device="meta"):
    """A TinyLM whose sliced tensors have rank's shapes."""
    model = TinyLM(device=device)
    for name, dim in SLICED.items():
        start, stop = share(source.state_dict()[name].shape[dim], rank, world_size)
        owner, attribute = name.rsplit(".", 1)
        shape = list(source.state_dict()[name].shape)
        shape[dim] = stop - start
        new = torch.nn.Parameter(torch.empty(shape, device=device))
        for module in {"embed": [model.embed, model.lm_head]}.get(owner, [getattr(model, owner)]):
            setattr(module, attribute, new)
    return model


@pytest.mark.parametrize("world_size", [2, 3, 4])
@pytest.mark.parametrize("device", ["meta", "cpu"])
def test_tp_plan_gives_each_rank_its_narrow(folder, world_size, device):
    source = seeded(1)
    path = save(file_state(source), folder)
    full = source.state_dict()
    for rank in range(world_size):
        target = rank_model(source, rank, world_size, device)
        result = ht.load_model(target, path, device="cpu", tp_plan=PLAN, rank=rank, world_size=world_size)
        assert result == ([], [])
        assert target.lm_head.weight is target.embed.weight
        for name, value in target.state_dict().items():
            if name in SLICED or name == "lm_head.weight":
                dim = SLICED.get(name, 0)
                start, stop = share(full[name].shape[dim], rank, world_size)
                expected = full[name].narrow(dim, start, stop - start)
            else:
                expected = full[name]
            assert value.shape == expected.shape, (name, rank)
            assert torch.equal(value, expected), (name, rank)
        sliced = sum(full[n].numel() * 4 for n in full if n not in SLICED and n != "lm_head.weight")
        assert result.stats["bytes"] == sliced + sum(
            target.state_dict()[n].numel() * 4 for n in SLICED)


def test_tp_slices_of_all_ranks_make_the_whole(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    world_size = 4
    parts = []
    for rank in range(world_size):
        target = rank_model(source, rank, world_size)
        ht.load_model(target, path, device="cpu", tp_plan=PLAN, rank=rank, world_size=world_size)
        parts.append(target)
    for name, dim in SLICED.items():
        whole = torch.cat([p.state_dict()[name] for p in parts], dim)
        assert torch.equal(whole, source.state_dict()[name]), name
    assert parts[3].gate.weight.shape == (0, INNER)  # 3 rows over 4 ranks: the last holds none


def test_tp_size_mismatch_names_the_slice(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = seeded(2)  # whole tensors, but rank 1 of 2 holds slices
    with pytest.raises(RuntimeError) as info:
        ht.load_model(target, path, tp_plan={"up.weight": "column"}, rank=1, world_size=2)
    assert str(info.value) == (
        "Error(s) in loading state_dict for TinyLM:\n\tsize mismatch for up.weight: copying a param with shape "
        "torch.Size([6, 11]) from checkpoint, the shape in current model is torch.Size([13, 11]). (rank 1 of 2 "
        "holds elements [7, 13) of dimension 0 of the checkpoint's torch.Size([13, 11]) under the column layout)")


def test_tied_names_with_different_slices_are_an_error(folder):
    path = save(file_state(seeded(1)), folder)
    with pytest.raises(RuntimeError) as info:
        ht.load_model(seeded(2), path, tp_plan={"embed.weight": "vocabulary"}, rank=0, world_size=2)
    assert str(info.value) == (
        "Error(s) in loading state_dict for TinyLM:\n\tembed.weight is tied to lm_head.weight, which tp_plan "
        "slices otherwise (None against vocabulary): one tensor holds one slice")


def test_bad_tp_plans_and_ranks(folder):
    path = save(file_state(seeded(1)), folder)
    with pytest.raises(ValueError) as info:
        ht.load_model(seeded(2), path, tp_plan={"up.weight": "colwise"})
    assert str(info.value) == ("hipfile: tp_plan['up.weight'] is 'colwise'; a layout is one of column, row, "
                               "vocabulary, replicated")
    with pytest.raises(TypeError) as info:
        ht.load_model(seeded(2), path, tp_plan=["up.weight"])
    assert str(info.value) == "hipfile: tp_plan must be a mapping of name patterns to layouts, not list"
    with pytest.raises(ValueError) as info:
        ht.load_model(seeded(2), path, rank=2, world_size=2)
    assert str(info.value) == "hipfile: rank 2 of world_size 2: a rank is in [0, world_size)"


def test_world_of_one_reads_whole_tensors_under_a_plan(folder):
    source = seeded(1)
    path = save(file_state(source), folder)
    target = seeded(2)
    ht.load_model(target, path, tp_plan=PLAN)
    assert_same_state(source, target)


def test_shared_read_needs_a_process_group(folder):
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        pytest.skip("a process group is initialized in this process")
    path = save(file_state(seeded(1)), folder)
    with pytest.raises(RuntimeError) as info:
        ht.load_model(seeded(2), path, shared_read=True)
    assert str(info.value) == ("hipfile: shared_read=True broadcasts between the ranks of a process group: "
                               "call torch.distributed.init_process_group first")
