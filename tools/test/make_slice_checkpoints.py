#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make_slice_checkpoints.py DIR: the checkpoints of hipfile-load's --slice and --rank tests,
# written with json and struct alone. nd.safetensors holds tensors of 0 to 4 dimensions (odd
# lengths, several element sizes, an F4 one that cannot be sliced); tp.safetensors holds only
# 1-D and 2-D tensors, some of lengths 2, 3 and 4 do not divide, so that the ranks' shares of a
# column layout tile the file; tp-00001-of-00002 and -00002 split it over two shards with
# tp.safetensors.index.json. Every byte differs from its neighbours, so a misplaced row shows.
import json
import os
import struct
import sys

BITS = {"U8": 8, "I16": 16, "BF16": 16, "F32": 32, "F64": 64, "F4": 4}


def data(n, seed):
    x = seed
    out = bytearray(n)
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = x >> 16 & 0xFF
    return bytes(out)


def write(path, tensors, seed):
    entries, blobs, at = {"__metadata__": {"format": "pt"}}, [], 0
    for k, (name, dtype, shape) in enumerate(tensors):
        bits = BITS[dtype]
        for d in shape:
            bits *= d
        n = bits // 8
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}
        blobs.append(data(n, seed + k))
        at += n
    text = json.dumps(entries, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


ND = [("scalar", "F64", []), ("bias", "F32", [13]), ("w", "BF16", [11, 9]), ("cube", "I16", [5, 7, 6]),
      ("four", "U8", [3, 4, 5, 9]), ("packed", "F4", [6, 4])]
TP = [("embed", "BF16", [37, 8]), ("q.weight", "BF16", [12, 8]), ("q.bias", "BF16", [12]),
      ("o.weight", "F32", [8, 11]), ("o.bias", "F32", [2]), ("norm", "F32", [7])]


def main(out):
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "nd.safetensors"), ND, 3)
    write(os.path.join(out, "tp.safetensors"), TP, 40)
    halves = [TP[:3], TP[3:]]
    weight_map = {}
    for i, half in enumerate(halves):
        name = f"tp-0000{i + 1}-of-00002.safetensors"
        write(os.path.join(out, name), half, 60 + 10 * i)
        weight_map.update({n: name for n, _, _ in half})
    with open(os.path.join(out, "tp.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


if __name__ == "__main__":
    main(sys.argv[1])
