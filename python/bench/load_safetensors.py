#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python acceptance run on the GPU machine: hipfile.load_safetensors against
safetensors.torch.load_file, every figure a ratio measured in this run.

    PYTHONPATH=build-gpu/python python3 python/bench/load_safetensors.py [--dir /tmp] [--out OUTDIR]

1. The checkpoint: DIR/hipfile-bench-llama.safetensors, the Llama-shaped bf16 file (173
   tensors, 7.36 GB) that bench/safetensors_load.py makes with safetensors.torch.save_file; reused
   when it is already there with the right size, made the same way otherwise.
2. The pinned host-to-device copy rate (torch, 1 GiB, best of 3): the ceiling for hot loads.
3. Hot (page cache filled first): safetensors.torch.load_file(path, device="cuda:0") best of
   3, hipfile.load_safetensors(path, device="cuda:0") best of 5; every tensor torch.equal
   (compared as int16, so NaN bit patterns count) and on the same device.
4. Cold (fsync + posix_fadvise(DONTNEED) before each pass), --cold-passes each (default 3),
   the loaders alternating which goes first; the best pass of each is compared.
Prints one line per figure and a verdict per target (hot >= 8x, cold >= 1.0x); writes
OUTDIR/python_load.json when --out is given.
"""
import argparse
import gc
import json
import os
import sys
import time

import torch
from safetensors.torch import load_file

import hipfile

# The checkpoint (its shapes, how it is made or reused) and the cache handling are
# bench/safetensors_load.py's, so the two benches share one file and one way of dropping it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from safetensors_load import drop, make, shapes, warm  # noqa: E402


def timed(load, path):
    gc.collect()
    torch.cuda.synchronize()
    t = time.perf_counter()
    d = load(path, device="cuda:0")
    torch.cuda.synchronize()
    return time.perf_counter() - t, d


def best(load, path, reps):
    times = []
    for _ in range(reps):
        s, d = timed(load, path)
        times.append(s)
        del d
    return min(times), times


def pinned_h2d():
    src = torch.empty(1 << 30, dtype=torch.uint8).pin_memory()
    dst = torch.empty(1 << 30, dtype=torch.uint8, device="cuda:0")
    dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize()
    out = []
    for _ in range(3):
        t = time.perf_counter()
        dst.copy_(src, non_blocking=True)
        torch.cuda.synchronize()
        out.append((1 << 30) / (time.perf_counter() - t) / 1e9)
    return max(out)


def same(ours, theirs):
    if ours.keys() != theirs.keys():
        return f"names differ: {sorted(ours.keys() ^ theirs.keys())[:5]}"
    for k, y in theirs.items():
        x = ours[k]
        if not isinstance(x, torch.Tensor) or x.dtype != y.dtype or x.shape != y.shape or x.device != y.device:
            return f"{k}: {getattr(x, 'dtype', type(x))}{tuple(getattr(x, 'shape', ()))} on {getattr(x, 'device', '?')} " \
                   f"vs {y.dtype}{tuple(y.shape)} on {y.device}"
        if not torch.equal(x.view(torch.int16), y.view(torch.int16)):
            return f"{k}: values differ"
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--out")
    ap.add_argument("--cold-passes", type=int, default=3,
                    help="cold passes of each loader, alternating which goes first (default 3)")
    a = ap.parse_args()
    path = os.path.join(a.dir, "hipfile-bench-llama.safetensors")
    how = make(path)
    size = os.path.getsize(path)
    print(f"checkpoint: {path} ({how}), {len(shapes())} tensors, {size / 1e9:.3f} GB bf16; "
          f"torch {torch.__version__}, hipfile {hipfile.__version__} ({hipfile.platform}), {torch.cuda.get_device_name(0)}")
    r = {"file": path, "bytes": size, "tensors": len(shapes()), "torch": torch.__version__}
    r["pinned_h2d_GBps"] = pinned_h2d()
    print(f"pinned host->device copy: {r['pinned_h2d_GBps']:.1f} GB/s (ceiling for hot loads)")

    warm(path)
    r["hot_st_s"], r["hot_st_all"] = best(load_file, path, 3)
    r["hot_hf_s"], r["hot_hf_all"] = best(hipfile.load_safetensors, path, 5)
    _, theirs = timed(load_file, path)
    _, ours = timed(hipfile.load_safetensors, path)
    r["equal"] = same(ours, theirs) or "all equal"
    del ours, theirs
    gc.collect()
    torch.cuda.empty_cache()
    r["hot_ratio"] = r["hot_st_s"] / r["hot_hf_s"]
    r["hot_vs_pinned"] = size / r["hot_hf_s"] / 1e9 / r["pinned_h2d_GBps"]
    print(f"hot  safetensors.torch.load_file: {r['hot_st_s']:.3f} s ({size / r['hot_st_s'] / 1e9:.1f} GB/s), best of 3")
    print(f"hot  hipfile.load_safetensors:    {r['hot_hf_s']:.3f} s ({size / r['hot_hf_s'] / 1e9:.1f} GB/s), best of 5; "
          f"{r['hot_vs_pinned']:.2f}x pinned H2D")
    print(f"hot  ratio hipfile/safetensors: {r['hot_ratio']:.2f}x  [target >= 8x: {'PASS' if r['hot_ratio'] >= 8 else 'FAIL'}]")
    print(f"every tensor torch.equal to safetensors' own: {r['equal']}")

    cold = {"st": [], "hf": []}
    loaders = [("st", load_file), ("hf", hipfile.load_safetensors)]
    for i in range(a.cold_passes):
        for key, load in loaders if i % 2 == 0 else loaders[::-1]:
            drop(path)
            s, d = timed(load, path)
            cold[key].append(s)
            del d
            gc.collect()
            torch.cuda.empty_cache()
    r["cold_st_all"], r["cold_hf_all"] = cold["st"], cold["hf"]
    r["cold_st_s"], r["cold_hf_s"] = min(cold["st"]), min(cold["hf"])
    r["cold_ratio"] = r["cold_st_s"] / r["cold_hf_s"]
    print(f"cold safetensors.torch.load_file: {r['cold_st_s']:.3f} s ({size / r['cold_st_s'] / 1e9:.2f} GB/s), "
          f"passes {', '.join(f'{x:.2f}' for x in cold['st'])}")
    print(f"cold hipfile.load_safetensors:    {r['cold_hf_s']:.3f} s ({size / r['cold_hf_s'] / 1e9:.2f} GB/s), "
          f"passes {', '.join(f'{x:.2f}' for x in cold['hf'])}")
    print(f"cold ratio hipfile/safetensors: {r['cold_ratio']:.2f}x  [target >= 1.0x: {'PASS' if r['cold_ratio'] >= 1.0 else 'FAIL'}]")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "python_load.json"), "w") as f:
            json.dump(r, f, indent=1)
    ok = r["hot_ratio"] >= 8 and r["cold_ratio"] >= 1.0 and r["equal"] == "all equal"
    print("verdict:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
