# SPDX-License-Identifier: MIT
"""One rank of test_distributed.py, started by torchrun: joins a gloo group, fills a model from
the checkpoint with hipfile.torch.load_model(shared_read=True) (and a tp_plan when asked), checks
every tensor against the file read by a plain reader written here, and writes what it found to
OUT/rank-N.json.

usage: dist_worker.py CHECKPOINT OUT {replicated|tensor-parallel}
"""

import json
import os
import struct
import sys

import numpy as np
import torch
import torch.distributed as dist

import hipfile.torch as ht

PLAN = {"*.up.weight": "column", "*.up.bias": "column", "*.embed.weight": "vocabulary"}


def read_reference(path):
    """name -> torch tensor of an F32 .safetensors file: the format's header and bytes, read
    without hipfile."""
    with open(path, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(length))
        data = f.read()
    header.pop("__metadata__", None)
    out = {}
    for name, info in header.items():
        assert info["dtype"] == "F32", name
        start, stop = info["data_offsets"]
        out[name] = torch.from_numpy(np.frombuffer(data[start:stop], dtype="<f4").copy()).reshape(info["shape"])
    return out


def build(shapes, rank, world_size, tensor_parallel):
    """A module holding a parameter of each checkpoint shape (rank's slice where the plan slices
    it), on the meta device, under the checkpoint's names."""
    model = torch.nn.Module()
    for name, shape in shapes.items():
        owner = model
        *path, attribute = name.split(".")
        for part in path:
            if not hasattr(owner, part):
                owner.add_module(part, torch.nn.Module())
            owner = getattr(owner, part)
        part = expected_part(name, shape, rank, world_size) if tensor_parallel else None
        if part is not None:
            dim, start, stop = part
            shape = shape[:dim] + [stop - start] + shape[dim + 1:]
        owner.register_parameter(attribute, torch.nn.Parameter(torch.empty(shape, device="meta")))
    return model


def expected_part(name, shape, rank, world_size):
    """(dim, start, stop) of rank's ceil-split share of dimension 0 under PLAN, or None."""
    if not any(name.endswith(p[1:]) for p in PLAN):
        return None
    size = -(-shape[0] // world_size)
    start = min(rank * size, shape[0])
    return 0, start, min(start + size, shape[0])


def main(checkpoint, out, mode):
    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    reference = read_reference(checkpoint)
    tensor_parallel = mode == "tensor-parallel"
    model = build({k: list(v.shape) for k, v in reference.items()}, rank, world_size, tensor_parallel)
    result = ht.load_model(model, checkpoint, device="cpu", shared_read=True,
                           tp_plan=PLAN if tensor_parallel else None)
    wrong = []
    for name, value in model.state_dict().items():
        part = expected_part(name, list(reference[name].shape), rank, world_size) if tensor_parallel else None
        expected = reference[name] if part is None else reference[name].narrow(0, part[1], part[2] - part[1])
        if value.shape != expected.shape or not torch.equal(value, expected):
            wrong.append(name)
    report = {"rank": rank, "world_size": world_size, "wrong": wrong, "missing": result.missing_keys,
              "unexpected": result.unexpected_keys, "stats": result.stats}
    with open(os.path.join(out, f"rank-{rank}.json"), "w") as f:
        json.dump(report, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:4])
