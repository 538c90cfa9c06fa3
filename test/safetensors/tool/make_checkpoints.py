#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make_checkpoints.py DIR: the checkpoints the hipfile-load tests use, written by hand with
# json and struct (no safetensors package needed): single.safetensors (every dtype, an empty,
# a scalar and odd-sized tensors, packed at odd offsets), a two-shard checkpoint with its
# model.safetensors.index.json, bad.safetensors (two tensors that overlap), hostile.safetensors
# (names and metadata holding terminal control sequences) and hostile_bad.safetensors (bad, with
# such a name in the error).
import json
import os
import struct
import sys

DTYPES = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16,
          "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64, "I64": 64, "U64": 64,
          "F64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}


def data(n, seed):
    x = seed
    out = bytearray(n)
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out[i] = x >> 16 & 0xFF
    return bytes(out)


def write(path, tensors, seed, metadata=None, header=None):
    """tensors: [(name, dtype, shape)], packed in order; header overrides the computed one."""
    entries, blobs, at = {}, [], 0
    if metadata:
        entries["__metadata__"] = metadata
    for k, (name, dtype, shape) in enumerate(tensors):
        bits = DTYPES[dtype]
        for d in shape:
            bits *= d
        n = bits // 8
        entries[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, at + n]}
        blobs.append(data(n, seed + k))
        at += n
    text = (header if header is not None else json.dumps(entries, separators=(",", ":"))).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main(out):
    os.makedirs(out, exist_ok=True)
    single = [("t." + d, d, [8 if DTYPES[d] % 8 else 3 + i]) for i, d in enumerate(DTYPES)]
    single += [("empty", "F32", [0, 5]), ("scalar", "F64", []), ("one", "I8", [1]),
               ("model.layers.1.w", "BF16", [33, 7]), ("model.layers.10.w", "BF16", [5]),
               ("big", "U8", [(3 << 20) + 5])]
    write(os.path.join(out, "single.safetensors"), single, 1, {"format": "pt"})
    a = [("embed", "BF16", [64, 32]), ("layers.0.w", "F32", [17, 3])]
    b = [("layers.1.w", "F32", [3, 17]), ("head", "BF16", [32, 64])]
    write(os.path.join(out, "model-00001-of-00002.safetensors"), a, 10, {"format": "pt"})
    write(os.path.join(out, "model-00002-of-00002.safetensors"), b, 20, {"format": "pt"})
    weight_map = {n: "model-00001-of-00002.safetensors" for n, _, _ in a}
    weight_map.update({n: "model-00002-of-00002.safetensors" for n, _, _ in b})
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 12000}, "weight_map": weight_map}, f)
    bad = '{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}}'
    write(os.path.join(out, "bad.safetensors"), [("a", "F32", [6])], 1, header=bad)
    # Names and metadata that would drive a terminal if printed raw: an ESC sequence, a BEL, an
    # OSC title change, a C1 CSI (U+009B) and a right-to-left override (U+202E).
    red = "\x1b[31m"
    write(os.path.join(out, "hostile.safetensors"), [(red, "U8", [3]), ("x\u202ey", "U8", [2])], 5,
          {"note": "a\x07b\x1b]0;owned\x07c\u009bd"})
    evil = json.dumps({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                       red + "red": {"dtype": "F32", "shape": [4], "data_offsets": [8, 24]}})
    write(os.path.join(out, "hostile_bad.safetensors"), [("a", "F32", [6])], 1, header=evil)


if __name__ == "__main__":
    main(sys.argv[1])
