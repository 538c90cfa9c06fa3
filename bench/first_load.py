#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The first load in a fresh process, as a model server meets it; every figure from this run.

    bench/first_load.py --load BUILD/tools/hipfile-load [--dir /tmp] [--out OUTDIR] [--passes 3]

The interpreter must import the hipfile under test (PYTHONPATH=BUILD/python). Uses the 7.36 GB
Llama-shaped bf16 checkpoint of bench/safetensors_load.py (made in DIR when missing), page
cache hot.

1. Fresh processes, PASSES passes, the loaders alternating within each pass:
   - safetensors: `safetensors.torch.load_file(path, device="cuda:0")`;
   - hipfile: `hipfile.load_safetensors(path, device="cuda:0")`;
   each child times `import torch`, the CUDA context (torch.cuda.init, one allocation) and
   the import of the loader apart from the first load itself, which ends with
   torch.cuda.synchronize(); the parent times the whole process.
   - hipfile-load --json: the whole process, and the load it times itself.
2. First against later loads in one process (hipfile: 4 loads; safetensors: 3).
3. The phase breakdown of a first load: hipfile.last_load_stats() and hipfile.stats()["phases"]
   after it, and hipfile-load's first_pass and startup.
4. Steps: the library's GPU runtime start, driver open, a 4 KiB load, a 64 MiB load, then the
   checkpoint twice, each timed, with the default configuration and with libcufile loaded
   (HIPFILE_CUFILE_LIBRARY=libcufile.so.0): what the first load pays once, step by step.
Prints a table and a verdict per target of the issue, writes OUTDIR/first_load.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(kind, path, repeat, small_dir):
    """One fresh process's measurements, printed as JSON on stdout."""
    out = {"kind": kind}
    t = time.perf_counter()
    import torch
    out["import_torch_s"] = time.perf_counter() - t
    t = time.perf_counter()
    torch.cuda.init()
    torch.empty(1, device="cuda:0")
    torch.cuda.synchronize()
    out["context_s"] = time.perf_counter() - t
    t = time.perf_counter()
    if kind == "safetensors":
        from safetensors.torch import load_file

        def load(p):
            return load_file(p, device="cuda:0")
    else:
        import hipfile

        def load(p):
            return hipfile.load_safetensors(p, device="cuda:0")
    out["import_loader_s"] = time.perf_counter() - t
    steps = []
    if kind == "steps":
        t = time.perf_counter()
        hipfile.device_count()  # the first call into the library's own GPU runtime
        steps.append(["runtime start", time.perf_counter() - t])
        t = time.perf_counter()
        hipfile.driver_open()
        steps.append(["driver open", time.perf_counter() - t])
        for name in ("small_4k.safetensors", "small_64m.safetensors"):
            t = time.perf_counter()
            d = load(os.path.join(small_dir, name))
            torch.cuda.synchronize()
            steps.append([f"load {name}", time.perf_counter() - t])
            del d
    loads = []
    phases = None
    for i in range(repeat):
        torch.cuda.synchronize()
        t = time.perf_counter()
        d = load(path)
        torch.cuda.synchronize()
        loads.append(time.perf_counter() - t)
        if i == 0 and kind != "safetensors":
            phases = {"load": hipfile.last_load_stats(), "library": hipfile.stats()["phases"]}
        del d
    out["loads_s"] = loads
    out["steps"] = steps + [[f"load checkpoint #{i + 1}", s] for i, s in enumerate(loads)] if kind == "steps" else []
    out["phases"] = phases
    print(json.dumps(out))


def run_child(kind, path, repeat, small_dir, env=None):
    t = time.perf_counter()
    r = subprocess.run([sys.executable, __file__, "--child", kind, "--path", path, "--repeat", str(repeat),
                        "--small-dir", small_dir], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"child {kind}: exit {r.returncode}\n{r.stderr[-3000:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["process_s"] = wall
    return out


def run_tool(exe, path):
    t = time.perf_counter()
    r = subprocess.run([exe, "--json", "-q", path], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{exe}: exit {r.returncode}\n{r.stderr}")
    out = json.loads(r.stdout)
    return {"kind": "hipfile-load", "process_s": wall, "loads_s": out["seconds"], "tool": out}


def small_checkpoints(directory):
    import torch
    from safetensors.torch import save_file
    save_file({"x": torch.zeros(1024, dtype=torch.float32)}, os.path.join(directory, "small_4k.safetensors"))
    save_file({"x": torch.zeros(16 << 20, dtype=torch.float32)}, os.path.join(directory, "small_64m.safetensors"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child")
    ap.add_argument("--path")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--small-dir", default="/tmp")
    ap.add_argument("--load")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--out")
    ap.add_argument("--passes", type=int, default=3)
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.path, a.repeat, a.small_dir)

    sys.path.insert(0, HERE)
    import safetensors_load as sl
    path = os.path.join(a.dir, "hipfile-bench-model.safetensors")
    print(f"checkpoint: {sl.make(path)} {path} ({os.path.getsize(path) / 1e9:.2f} GB)", flush=True)
    small_checkpoints(a.dir)
    gb = sl.data_bytes() / 1e9
    sl.warm(path)
    result = {"checkpoint_gb": gb, "fresh": {"safetensors": [], "hipfile": [], "hipfile-load": []}}
    for p in range(a.passes):
        for kind in ("safetensors", "hipfile"):
            r = run_child(kind, path, 1, a.dir)
            result["fresh"][kind].append(r)
            print(f"pass {p + 1} {kind:12s} process {r['process_s']:.2f} s: import torch {r['import_torch_s']:.2f}, "
                  f"context {r['context_s']:.2f}, import {r['import_loader_s']:.2f}, first load {r['loads_s'][0]:.3f} s "
                  f"({gb / r['loads_s'][0]:.2f} GB/s)", flush=True)
        if a.load:
            r = run_tool(a.load, path)
            result["fresh"]["hipfile-load"].append(r)
            tool = r["tool"]
            print(f"pass {p + 1} hipfile-load process {r['process_s']:.2f} s: load {r['loads_s'][0]:.3f} s "
                  f"({tool['vs_pinned_h2d']:.3f}x its pinned copy {tool['pinned_h2d_gbps']:.1f} GB/s)", flush=True)
    for kind, repeat in (("hipfile", 4), ("safetensors", 3)):
        r = run_child(kind, path, repeat, a.dir)
        result[f"in_process_{kind}"] = r
        print(f"{kind} in one process: " + ", ".join(f"{s:.3f}" for s in r["loads_s"]) + " s", flush=True)
    # "libcufile": the library asked to load libcufile (by its soname) even where the kernel has no
    # nvidia-fs, as every driver open did before it checked: what that costs a first load.
    for label, env in (("default", None), ("libcufile", dict(os.environ, HIPFILE_CUFILE_LIBRARY="libcufile.so.0"))):
        r = run_child("steps", path, 2, a.dir, env)
        result[f"steps_{label}"] = r
        print(f"steps ({label}): " + ", ".join(f"{n} {s:.3f}" for n, s in r["steps"]), flush=True)
    first = result["fresh"]["hipfile"][0]
    if first.get("phases"):
        print("phases of a first load: " + json.dumps(first["phases"]))

    def best_first(kind):
        return min(r["loads_s"][0] for r in result["fresh"][kind])
    st, hf = best_first("safetensors"), best_first("hipfile")
    later = min(result["in_process_hipfile"]["loads_s"][1:])
    first_in = result["in_process_hipfile"]["loads_s"][0]
    verdicts = {
        "fresh first load, hipfile vs safetensors (>= 8x)": st / hf,
        "first vs later load in one process (<= 1.15x)": first_in / later,
    }
    if result["fresh"]["hipfile-load"]:
        verdicts["hipfile-load own load vs pinned (>= 0.9x)"] = statistics.median(
            r["tool"]["vs_pinned_h2d"] for r in result["fresh"]["hipfile-load"])
    result["verdicts"] = verdicts
    for k, v in verdicts.items():
        print(f"{k}: {v:.2f}")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "first_load.json"), "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
