# SPDX-License-Identifier: MIT
"""Checkpoints for the tests of load_safetensors_into, stream_safetensors and hipfile.safetensors,
written and read back here without hipfile: the format's 8-byte little-endian header length, the
JSON header and the data offsets, so what hipfile reads is compared with an independent parse."""

import json
import struct

import numpy as np

from conftest import pattern

# safetensors dtype -> (bytes per element, NumPy type of its values or raw bits)
DTYPES = {"F64": (8, "<f8"), "F32": (4, "<f4"), "F16": (2, "<f2"), "BF16": (2, "<u2"), "F8_E4M3": (1, "|u1"),
          "F8_E5M2": (1, "|u1"), "F8_E8M0": (1, "|u1"), "C64": (8, "<c8"), "I64": (8, "<i8"), "I32": (4, "<i4"),
          "I16": (2, "<i2"), "I8": (1, "|i1"), "U64": (8, "<u8"), "U32": (4, "<u4"), "U16": (2, "<u2"),
          "U8": (1, "|u1"), "BOOL": (1, "|b1")}


def raw_values(dtype, shape, seed):
    """Reproducible bytes for a tensor (0 or 1 for BOOL; no NaN patterns matter: bytes are compared)."""
    raw = pattern(int(np.prod(shape, dtype=np.int64)) * DTYPES[dtype][0], seed).tobytes()
    if dtype == "BOOL":
        raw = bytes(b & 1 for b in raw)
    return raw


def write(path, tensors, metadata=None, pad=True):
    """tensors: [(name, dtype, shape, raw bytes)], laid out in the order given; pad: the header
    padded with spaces to a multiple of 8 bytes, as safetensors writes it."""
    header, offset = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors))


def make(path, specs, seed=1, metadata=None):
    """Writes [(name, dtype, shape)] with reproducible values; returns [(name, dtype, shape, raw)]."""
    tensors = [(n, d, tuple(s), raw_values(d, s, seed + i)) for i, (n, d, s) in enumerate(specs)]
    write(path, tensors, metadata)
    return tensors


def parse(path):
    """(ordered {name: (dtype, shape, raw bytes)} in file order, metadata or None)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    metadata = header.pop("__metadata__", None)
    data = blob[8 + n:]
    entries = sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0])
    return {k: (v["dtype"], tuple(v["shape"]), data[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in entries}, metadata


def array(dtype, shape, raw):
    """The tensor as a NumPy array (BF16 and float8 as their raw bits)."""
    return np.frombuffer(raw, dtype=DTYPES[dtype][1]).reshape(shape)


def parsed_arrays(path):
    tensors, _ = parse(path)
    return {k: array(*v) for k, v in tensors.items()}
