#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora of the safetensors fuzz targets (test/fuzz/corpus-{header,index,load}):
small valid checkpoints (several dtypes, scalars, empty tensors, metadata, unaligned offsets),
near-valid ones that each break one rule, and indexes over the shards index_fuzz.cpp makes.
Seeds only: what a fuzzing run finds stays in its own copy. Run from anywhere; rewrites the
three folders."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16,
        "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64, "I64": 64, "U64": 64,
        "F64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}


def checkpoint(tensors, metadata=None):
    """(header text, data) of a valid file: tensors = [(name, dtype, shape)], packed in order."""
    header, offset = {}, 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape in tensors:
        n = BITS[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n // 8]}
        offset += n // 8
    data = bytes((i * 37 + 11) % 251 for i in range(offset))
    return json.dumps(header, separators=(",", ":")).encode(), data


VALID = {
    "f32-matrix-metadata": checkpoint([("w", "F32", [2, 3])], {"format": "pt"}),
    "many-dtypes": checkpoint([(d.lower(), d, [2]) for d in
                               ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "F8_E8M0", "I16", "U16", "F16",
                                "BF16", "I32", "U32", "F32", "C64", "I64", "U64", "F64", "F4"]]),
    "scalars": checkpoint([("s64", "F64", []), ("s8", "I8", []), ("s16", "BF16", [])]),
    "empty-tensors": checkpoint([("e0", "F32", [0]), ("a", "U8", [3]), ("e1", "I64", [2, 0]),
                                 ("b", "I16", [1]), ("e2", "U8", [0, 5])]),
    "metadata-only": checkpoint([], {"format": "pt", "note": "caf\u00e9"}),
    "empty-object": checkpoint([]),
    "sub-byte": checkpoint([("f4", "F4", [4]), ("f6", "F6_E2M3", [4]), ("f6b", "F6_E3M2", [8])]),
    "unaligned": checkpoint([("odd", "U8", [3]), ("f32", "F32", [2]), ("c", "C64", [1])]),
    "names-escaped": checkpoint([("l\u00e4yer.\"0\"", "U16", [2]), ("", "U8", [1])]),
    "padded": (b'{"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}}' + b" " * 11, b"wxyz"),
}

BROKEN = {  # each breaks one rule; data sized for the rule under test
    "gap": (b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[3,4]}}', b"abcd"),
    "overlap": (b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}', b"abc"),
    "size-mismatch": (b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', b"abcd"),
    "unknown-dtype": (b'{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}', b"x" * 16),
    "duplicate-name": (b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x"),
    "nested-duplicate": (b'{"__metadata__":{"k":"1","k":"2"}}', b""),
    "invalid-utf8": (b'{"\xc3\x28":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}', b""),
    "not-object": (b'[1,2,3]', b""),
    "out-of-order": (b'{"a":{"dtype":"U8","shape":[0],"data_offsets":[2,1]}}', b"ab"),
    "out-of-range": (b'{"a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}', b"abcd"),
    "negative-dim": (b'{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}', b"a"),
    "float-dim": (b'{"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}}', b"a"),
    "overflow-dim": (b'{"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}', b"x" * 8),
    "huge-number": (b'{"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}}', b"a"),
    "metadata-not-string": (b'{"__metadata__":{"n":1}}', b""),
    "truncated": (b'{"a":{"dtype":"U8","shape":[1],"data_off', b"a"),
    "missing-field": (b'{"a":{"dtype":"U8","data_offsets":[0,1]}}', b"a"),
    "f6-odd-bits": (b'{"a":{"dtype":"F6_E2M3","shape":[1],"data_offsets":[0,1]}}', b"a"),
    "shallow-nesting": (b'{"a":{"dtype":"U8","shape":' + b"[" * 40 + b"1" + b"]" * 40 + b',"data_offsets":[0,1]}}', b"a"),
}


def prefixed(text, data):
    return struct.pack("<Q", len(text)) + text + data


def write(folder, name, blob):
    with open(os.path.join(HERE, folder, name), "wb") as f:
        f.write(blob)


def header_and_load_corpora():
    for folder in ("corpus-header", "corpus-load"):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    for name, (text, data) in {**VALID, **BROKEN}.items():
        # header_fuzz.cpp: 0 parse_header, 1 framed file, 3 verbatim file
        write("corpus-header", name + "-text", b"\x00" + text + b"\x00" + data)
        write("corpus-header", name + "-file", b"\x01" + text + b"\x00" + data)
        write("corpus-header", name + "-raw", b"\x03" + prefixed(text, data))
        # load_fuzz.cpp: even framed, odd verbatim
        write("corpus-load", name + "-framed", b"\x00" + text + b"\x00" + data)
        write("corpus-load", name + "-raw", b"\x01" + prefixed(text, data))
    write("corpus-header", "length-too-large-raw", b"\x03" + struct.pack("<Q", 100_000_001) + b"{}")
    write("corpus-header", "length-past-end-raw", b"\x03" + struct.pack("<Q", 64) + b"{}")
    write("corpus-header", "short-file-raw", b"\x03\x02\x00\x00")
    write("corpus-load", "short-file-raw", b"\x01{}")


SHARD1, SHARD2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
INDEXES = {
    "two-shards": {"metadata": {"total_size": 36}, "weight_map": {
        "embed.weight": SHARD1, "layer.0.bias": SHARD1, "layer.1.weight": SHARD2, "scalar": SHARD2, "empty": SHARD2}},
    "one-shard": {"weight_map": {"layer.1.weight": SHARD2}},
    "metadata-kinds": {"metadata": {"total_size": 36, "format": "pt", "nested": {"a": [1, 2]}},
                       "weight_map": {"embed.weight": SHARD1}},
    "metadata-arrays": {"metadata": {"total_size": 36, "shapes": [[2, 2], [[3]]]},
                        "weight_map": {"embed.weight": SHARD1, "scalar": SHARD2}},
    "wrong-shard": {"weight_map": {"embed.weight": SHARD2}},
    "not-in-shard": {"weight_map": {"absent": SHARD1}},
    "missing-shard": {"weight_map": {"x": "model-00003-of-00003.safetensors"}},
    "duplicate-across-shards": {"weight_map": {"embed.weight": SHARD1, "other": "dup.safetensors"}},
    "short-shard": {"weight_map": {"x": "short.safetensors"}},
    "the-index-itself": {"weight_map": {"x": "model.safetensors.index.json"}},
    "parent-dir": {"weight_map": {"x": "../" + SHARD1}},
    "absolute": {"weight_map": {"x": "/etc/hostname"}},
    "folder": {"weight_map": {"x": "."}},
    "empty-name": {"weight_map": {"x": ""}},
    "number-value": {"weight_map": {"x": 1}},
    "no-weight-map": {"metadata": {}},
    "weight-map-array": {"weight_map": [SHARD1]},
    "empty-weight-map": {"weight_map": {}},
}


def nested(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


def index_corpus():
    os.makedirs(os.path.join(HERE, "corpus-index"), exist_ok=True)
    # Metadata rendering recurses only past the depth that reading the shards reaches anyway, so
    # a deeper stack there counts as new coverage (stack-depth) only from about this nesting on.
    INDEXES["metadata-nested"] = {"metadata": {"nested": nested(100)}, "weight_map": {"scalar": SHARD2}}
    for name, doc in INDEXES.items():  # compact: indenting deep nesting grows as its square
        write("corpus-index", name, json.dumps(doc, separators=(",", ":")).encode())
    write("corpus-index", "duplicate-key",
          ('{"weight_map":{"embed.weight":"%s","embed.weight":"%s"}}' % (SHARD1, SHARD1)).encode())
    write("corpus-index", "not-json", b'{"weight_map":')
    write("corpus-index", "invalid-utf8", b'{"weight_map":{"\xff":"x"}}')
    write("corpus-index", "top-array", b'[]')


if __name__ == "__main__":
    header_and_load_corpora()
    index_corpus()
