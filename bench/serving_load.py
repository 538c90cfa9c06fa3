#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Serving-shaped loads (issue 41), every figure a ratio from this run, on one GPU.

    PYTHONPATH=BUILD/python bench/serving_load.py [--dir /tmp] [--json OUT.json] [--worlds 2,4,8]
    PYTHONPATH=BUILD/python bench/serving_load.py --dry-run     # tiny checkpoint, CPU, no GPU needed

1. A Llama-shaped bf16 model folder in DIR (hipfile-serving-llama/: model.safetensors of the
   shapes bench/safetensors_load.py uses, 19 layers, 7.36 GB, with finite values so that
   logits mean something; config.json of the matching LlamaConfig, embeddings tied), made once
   and reused.
2. The pinned host-to-device copy rate with torch: a pinned 512 MiB tensor .to(device,
   non_blocking=True), timed with CUDA events, best of 5: the ceiling every rate is put against.
3. hipfile.safetensors.load_file(path, device) against safetensors.torch.load_file, hot (best
   of 3, page cache filled first) and cold (fsync + posix_fadvise(DONTNEED) before one pass
   each); the two dicts compared bit for bit.
4. An empty transformers Llama (from config.json under accelerate.init_empty_weights) filled by
   hipfile.torch.load_model, against from_pretrained(device_map=device): seconds, the state
   dicts and the logits of one prompt compared bit for bit.
5. A model already on the GPU (uninitialized memory, to_empty) filled in place by load_model:
   torch.cuda.max_memory_allocated during the fill (less what was allocated before the model:
   the reference tensors of part 3) against its parameter and buffer bytes + 256 MiB.
6. Tensor-parallel ranks on the one GPU: for each world size N, ranks 0..N-1 each fill a model
   of their slices (tp_plan: q/k/v/gate/up column, o/down row; embeddings and norms whole) by
   load_model; each rank's bytes, bytes read, GB/s and ratio to the pinned rate, its tensors
   compared with the same slices of the full load.
Prints a table and, with --json, writes every figure. Parts whose packages are missing
(safetensors, transformers, accelerate) or that need CUDA are skipped with a line saying why;
--dry-run runs the rest on a tiny checkpoint on the CPU (or --device) to show the script works.
"""
import argparse
import contextlib
import json
import math
import os
import sys
import time

from llama_shapes import llama_shapes  # bench/llama_shapes.py, beside this script
from page_cache import drop, warm  # bench/page_cache.py, beside this script

# bench/safetensors_load.py's shapes (19 layers, 7.36 GB of bf16) and --dry-run's tiny ones.
FULL = {"layers": 19, "hidden": 4096, "mlp": 9728, "vocab": 32000, "heads": 32}
TINY = {"layers": 2, "hidden": 64, "mlp": 160, "vocab": 256, "heads": 4}
PLAN = {"*.q_proj.weight": "column", "*.k_proj.weight": "column", "*.v_proj.weight": "column",
        "*.o_proj.weight": "row", "*.gate_proj.weight": "column", "*.up_proj.weight": "column",
        "*.down_proj.weight": "row"}
MIB = 1 << 20


def optional(name):
    """The module, or None where it is not installed (its part is then skipped)."""
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        return None


def shapes(dims):
    return llama_shapes(dims["layers"], dims["hidden"], dims["mlp"], dims["vocab"])


def llama_config(dims):
    """config.json of the LlamaConfig these shapes are (kv heads = heads: k/v are [hidden, hidden])."""
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": dims["hidden"],
            "intermediate_size": dims["mlp"], "num_hidden_layers": dims["layers"],
            "num_attention_heads": dims["heads"], "num_key_value_heads": dims["heads"],
            "vocab_size": dims["vocab"], "max_position_embeddings": 2048, "rms_norm_eps": 1e-5,
            "hidden_act": "silu", "tie_word_embeddings": True, "torch_dtype": "bfloat16"}


def reusable(path, dims):
    """The checkpoint at path has exactly these tensors and sizes."""
    want = shapes(dims)
    try:
        with open(path, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(n))
        data = sum(2 * math.prod(s) for s in want.values())
        return {k: tuple(v["shape"]) for k, v in header.items() if k != "__metadata__"} == want and \
            os.path.getsize(path) == 8 + n + data
    except (OSError, ValueError):
        return False


def make_folder(folder, dims, device):
    """The model folder (made once): weights normal(0, 0.02), norms near 1, written by
    safetensors where it is installed (hipfile.safetensors otherwise)."""
    import torch
    import hipfile.safetensors as hst
    path = os.path.join(folder, "model.safetensors")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(llama_config(dims), f, indent=1)
    if reusable(path, dims):
        return path, "reused"
    g = torch.Generator(device=device).manual_seed(41)
    tensors = {}
    for name, shape in shapes(dims).items():
        scale, base = (0.02, 1.0) if len(shape) == 1 else (0.02, 0.0)
        x = torch.randn(shape, generator=g, device=device, dtype=torch.float32) * scale + base
        tensors[name] = x.to(torch.bfloat16).cpu()
    st = optional("safetensors.torch")
    (st.save_file if st else hst.save_file)(tensors, path, metadata={"format": "pt"})
    del tensors
    os.sync()
    return path, "made"


def sync(device):
    import torch
    if str(device).startswith("cuda"):
        torch.cuda.synchronize(device)


def timed(device, fn):
    sync(device)
    t = time.perf_counter()
    out = fn()
    sync(device)
    return time.perf_counter() - t, out


def bits(t):
    """t's bytes as integers of its element size, so that NaN bits compare too."""
    import torch
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def same(a, b):
    """'' where the two dicts of tensors are equal bit for bit, else the first difference."""
    import torch
    if a.keys() != b.keys():
        return f"names differ: {sorted(set(a) ^ set(b))[:5]}"
    for k in a:
        x, y = a[k], b[k]
        if x.dtype != y.dtype or x.shape != y.shape:
            return f"{k}: {x.dtype}{tuple(x.shape)} vs {y.dtype}{tuple(y.shape)}"
        if not torch.equal(bits(x.contiguous()), bits(y.to(x.device).contiguous())):
            return f"{k}: values differ"
    return ""


def pinned_rate(device):
    """GB/s of a pinned 512 MiB host tensor copied to the device, best of 5 (CUDA events)."""
    import torch
    if not str(device).startswith("cuda"):
        return None
    src = torch.empty(512 * MIB, dtype=torch.uint8).pin_memory()
    dst = torch.empty(512 * MIB, dtype=torch.uint8, device=device)
    seconds = []
    for _ in range(6):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dst.copy_(src, non_blocking=True)
        end.record()
        end.synchronize()
        seconds.append(start.elapsed_time(end) / 1e3)
    return src.numel() / min(seconds[1:]) / 1e9  # the first copy is a warm-up


def read_with_python(path):
    """Every tensor of the (bf16) file, read with plain Python I/O: a reference that shares no
    code with hipfile, for where the safetensors package is not installed."""
    import torch
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name != "__metadata__":
            begin, end = t["data_offsets"]
            out[name] = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.int16).view(torch.bfloat16).reshape(t["shape"])
    return out


def load_file_part(path, device, size, r, log):
    """hipfile.safetensors.load_file against safetensors.torch.load_file, hot and cold."""
    import hipfile.safetensors as hst
    st = optional("safetensors.torch")
    loaders = {"hipfile": lambda: hst.load_file(path, device=str(device))}
    if st:
        loaders["safetensors"] = lambda: st.load_file(path, device=str(device))
    else:
        log("skipped: safetensors.torch.load_file (the safetensors package is not installed)")
    warm(path)
    dicts = {}
    for name, load in loaders.items():
        hot = []
        for _ in range(3):
            dicts[name] = None
            seconds, dicts[name] = timed(device, load)
            hot.append(seconds)
        r[f"{name}_load_file_hot_seconds"] = hot
        log(f"hot  {name}.load_file: best {min(hot):.3f} s of 3 ({size / min(hot) / 1e9:.2f} GB/s)")
    for name, load in loaders.items():
        reference = dicts.pop(name)
        drop(path)
        seconds, _ = timed(device, load)
        dicts[name] = reference
        r[f"{name}_load_file_cold_seconds"] = seconds
        log(f"cold {name}.load_file: {seconds:.3f} s ({size / seconds / 1e9:.2f} GB/s)")
    if "safetensors" in dicts:
        diff = same(dicts["safetensors"], dicts["hipfile"])
        r["load_file_equal"] = diff or "equal"
        log(f"equal: hipfile.safetensors.load_file and safetensors.torch.load_file: {diff or 'all tensors'}")
        r["load_file_hot_speedup"] = min(r["safetensors_load_file_hot_seconds"]) / min(r["hipfile_load_file_hot_seconds"])
        r["load_file_cold_speedup"] = r["safetensors_load_file_cold_seconds"] / r["hipfile_load_file_cold_seconds"]
    else:
        diff = same(read_with_python(path), dicts["hipfile"])
        r["load_file_equal"] = diff or "equal"
        log(f"equal: hipfile.safetensors.load_file and the file read with Python: {diff or 'all tensors'}")
    return dicts["hipfile"]


@contextlib.contextmanager
def default_dtype(dtype):
    import torch
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def empty_llama(folder):
    """A transformers Llama from the folder's config.json, its parameters on the meta device."""
    import torch
    from accelerate import init_empty_weights
    from transformers import AutoConfig, AutoModelForCausalLM
    with init_empty_weights(), default_dtype(torch.bfloat16):
        return AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(folder))


def logits(model, device):
    import torch
    ids = torch.arange(1, 33, device=device).unsqueeze(0) % model.config.vocab_size
    with torch.no_grad():
        return model(ids).logits


def model_part(folder, device, r, log):
    """An empty Llama filled by load_model against from_pretrained: seconds, state dicts, logits."""
    import torch
    import hipfile.torch
    transformers = optional("transformers")
    if transformers is None or optional("accelerate") is None:
        log("skipped: the transformers model against from_pretrained (transformers or accelerate is not installed)")
        return
    def ours():
        model = empty_llama(folder)
        hipfile.torch.load_model(model, folder, device=str(device))
        return model.to(device).eval()  # the buffers (rotary frequencies); the parameters are there
    seconds, model = timed(device, ours)
    mine = {k: v for k, v in model.state_dict().items()}
    ours_logits = logits(model, device)
    del model
    key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    ref_seconds, ref = timed(device, lambda: transformers.AutoModelForCausalLM.from_pretrained(
        folder, device_map=str(device), **{key: torch.bfloat16}).eval())
    state = same(ref.state_dict(), mine)
    ref_logits = logits(ref, device)
    same_logits = torch.equal(bits(ours_logits), bits(ref_logits))
    # Where they differ, by how much: buffers the checkpoint does not hold (the rotary
    # frequencies) are computed by each model's own code, possibly on another device.
    gap = (ours_logits.float() - ref_logits.float()).abs().max().item()
    del ref, mine
    r.update(load_model_seconds=seconds, from_pretrained_seconds=ref_seconds, model_state_equal=state or "equal",
             logits_equal=same_logits, logits_max_abs_difference=gap, load_model_speedup=ref_seconds / seconds)
    log(f"model: empty Llama + hipfile.torch.load_model {seconds:.3f} s; from_pretrained(device_map) "
        f"{ref_seconds:.3f} s = {ref_seconds / seconds:.2f}x; state dicts {state or 'equal'}; "
        f"logits {'identical' if same_logits else f'DIFFER (largest difference {gap:.3g})'}")


def module_of(named_shapes, dtype, device):
    """A torch.nn.Module holding a parameter of each name and shape, nested at the dots (meta
    or uninitialized memory on device)."""
    import torch
    root = torch.nn.Module()
    for name, shape in named_shapes.items():
        *path, leaf = name.split(".")
        m = root
        for p in path:
            if p not in m._modules:
                m.add_module(p, torch.nn.Module())
            m = m._modules[p]
        m.register_parameter(leaf, torch.nn.Parameter(torch.empty(shape, dtype=dtype, device=device),
                                                      requires_grad=False))
    return root


def in_place_model(folder, dims, device):
    """A model whose memory is already on the device: the transformers Llama where installed."""
    import torch
    if optional("transformers") and optional("accelerate"):
        return empty_llama(folder).to_empty(device=device), "transformers Llama"
    return module_of(shapes(dims), torch.bfloat16, device), "module of the checkpoint's names"


def in_place_part(folder, dims, device, reference, r, log):
    """load_model into a model on the device: the peak device memory against the model's bytes."""
    import torch
    import hipfile.torch
    cuda = str(device).startswith("cuda")
    base = torch.cuda.memory_allocated(device) if cuda else 0  # the reference dict, kept for the checks
    model, kind = in_place_model(folder, dims, device)
    if cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    seconds, _ = timed(device, lambda: hipfile.torch.load_model(model, folder))
    own = sum(t.numel() * t.element_size() for t in list(model.parameters()) + list(model.buffers()))
    diff = same({k: reference[k] for k in shapes(dims)}, {k: v for k, v in model.state_dict().items() if k in reference})
    r.update(in_place_seconds=seconds, in_place_model=kind, in_place_model_bytes=own, in_place_equal=diff or "equal")
    if not cuda:
        log(f"in place: {kind} filled in {seconds:.3f} s; state {diff or 'equal'}; "
            "skipped: the peak-memory check (needs CUDA)")
        return
    peak = torch.cuda.max_memory_allocated(device) - base
    r.update(in_place_peak_bytes=peak, in_place_other_bytes=base, in_place_peak_within=peak <= own + 256 * MIB)
    log(f"in place: {kind} filled in {seconds:.3f} s; state {diff or 'equal'}; peak device memory "
        f"{peak / MIB:.0f} MiB (beyond the {base / MIB:.0f} MiB held before) against the model's {own / MIB:.0f} MiB + 256 MiB: "
        f"{'within' if peak <= own + 256 * MIB else 'OVER'}")


def share(length, rank, world):
    """rank's [start, stop) of length split over world ranks: ceil shares (the library's)."""
    size = -(-length // world)
    start = min(length, size * rank)
    return start, min(length, start + size)


def rank_part_of(name, shape, rank, world):
    """(dim, start, stop) of the tensor this rank holds under PLAN, or None for all of it."""
    from fnmatch import fnmatchcase
    layout = next((v for k, v in PLAN.items() if fnmatchcase(name, k)), None)
    if layout is None or (layout == "row" and len(shape) < 2):
        return None
    dim = len(shape) - 1 if layout == "row" else 0
    return (dim, *share(shape[dim], rank, world))


def rank_part(folder, dims, device, world, reference, pinned, r, log):
    """Ranks 0..world-1 each fill a meta module of their slices by load_model with PLAN."""
    import torch
    import hipfile.torch
    rows = []
    for rank in range(world):
        parts = {n: rank_part_of(n, s, rank, world) for n, s in shapes(dims).items()}
        sliced = {n: s if p is None else s[:p[0]] + (p[2] - p[1],) + s[p[0] + 1:]
                  for (n, s), p in zip(shapes(dims).items(), parts.values())}
        model = module_of(sliced, torch.bfloat16, "meta")
        seconds, result = timed(device, lambda: hipfile.torch.load_model(
            model, folder, device=str(device), tp_plan=PLAN, rank=rank, world_size=world))
        got = dict(model.state_dict())
        want = {n: t if parts[n] is None else t.narrow(parts[n][0], parts[n][1], parts[n][2] - parts[n][1])
                for n, t in reference.items()}
        s = result.stats
        gbps = s["bytes"] / seconds / 1e9
        rows.append({"world_size": world, "rank": rank, "bytes": s["bytes"], "bytes_read": s["bytes_read"],
                     "seconds": seconds, "gbps": gbps, "vs_pinned": gbps / pinned if pinned else None,
                     "equal": same(want, got) or "equal"})
        del model, got, want
        log(rank_line(rows[-1]))
    r.setdefault("ranks", []).extend(rows)


def rank_line(x):
    vs = f"{x['vs_pinned']:.3f}x pinned" if x["vs_pinned"] is not None else "no pinned rate (CPU)"
    return (f"tp   world {x['world_size']} rank {x['rank']}: {x['bytes'] / 1e9:.3f} GB needed, "
            f"{x['bytes_read'] / 1e9:.3f} GB read, {x['seconds']:.3f} s, {x['gbps']:.2f} GB/s = {vs}; {x['equal']}")


def summary(r, log):
    """The table of ratios that decide the acceptance run."""
    log("")
    log(f"{'figure':<52} {'value':>12}")
    for key, label in (("load_file_hot_speedup", "load_file hot: safetensors s / hipfile s"),
                       ("load_file_cold_speedup", "load_file cold: safetensors s / hipfile s"),
                       ("load_model_speedup", "model: from_pretrained s / load_model s"),
                       ("in_place_peak_within", "in place: peak <= model + 256 MiB"),
                       ("logits_equal", "logits identical")):
        if key in r:
            v = r[key]
            log(f"{label:<52} {v if isinstance(v, bool) else f'{v:.2f}x':>12}")
    for x in r.get("ranks", []):
        vs = f"{x['vs_pinned']:.3f}x" if x["vs_pinned"] is not None else "n/a"
        log(f"{'tp world %d rank %d: GB/s vs pinned H2D' % (x['world_size'], x['rank']):<52} {vs:>12}")


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default="/tmp", help="where the model folder is made and kept")
    ap.add_argument("--json", default="", help="write every figure here")
    ap.add_argument("--device", default=None, help="default: cuda:0 where CUDA is available, else cpu")
    ap.add_argument("--worlds", default="2,4,8", help="tensor-parallel world sizes (comma list)")
    ap.add_argument("--dry-run", action="store_true", help="a tiny checkpoint: shows the script runs, measures nothing")
    return ap.parse_args()


def main():
    a = parse()
    import torch
    import hipfile
    device = torch.device(a.device or ("cuda:0" if torch.cuda.is_available() else "cpu"))
    if device.type != "cuda" and not a.dry_run:
        sys.exit("serving_load.py: no CUDA device; --dry-run runs the script on a tiny checkpoint on the CPU")
    dims = TINY if a.dry_run else FULL
    folder = os.path.join(a.dir, "hipfile-serving-tiny" if a.dry_run else "hipfile-serving-llama")
    path, how = make_folder(folder, dims, device)
    size = os.path.getsize(path)
    log = print
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "none (CPU)"
    log(f"checkpoint: {path} ({how}), {len(shapes(dims))} tensors, {size / 1e9:.3f} GB bf16; torch {torch.__version__}, "
        f"hipfile {getattr(hipfile, '__version__', '?')}, GPU {gpu}{'; DRY RUN: no figure here means anything' if a.dry_run else ''}")
    r = {"file": path, "bytes": size, "device": str(device), "gpu": gpu, "dry_run": a.dry_run, "torch": torch.__version__}
    pinned = pinned_rate(device)
    r["pinned_h2d_gbps"] = pinned
    log(f"pinned H2D (torch, 512 MiB, CUDA events): {pinned:.2f} GB/s" if pinned else "skipped: the pinned H2D rate (needs CUDA)")
    reference = load_file_part(path, device, size, r, log)
    model_part(folder, device, r, log)
    in_place_part(folder, dims, device, reference, r, log)
    for world in (int(w) for w in a.worlds.split(",")):
        rank_part(folder, dims, device, world, reference, pinned, r, log)
    summary(r, log)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
