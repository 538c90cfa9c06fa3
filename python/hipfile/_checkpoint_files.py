# SPDX-License-Identifier: MIT
"""Which files make up a checkpoint given as a file, an index or a Hugging Face model folder."""

import os

INDEX_NAME = "model.safetensors.index.json"
SINGLE_NAME = "model.safetensors"


def checkpoint_source(path_or_dir):
    """What _hipfile._Checkpoint opens for path_or_dir: a file (a .safetensors or an index) as
    given; for a folder, its model.safetensors.index.json, else its model.safetensors, else all
    of its *.safetensors files in name order (a folder a tool saved as shards without an index).

    A path that does not exist, or a folder holding none of these, is a FileNotFoundError.
    """
    path = os.fspath(path_or_dir)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.isdir(path):
        if not os.path.exists(path):
            raise FileNotFoundError(f"hipfile: no checkpoint at {path!r}")
        return path
    for name in (INDEX_NAME, SINGLE_NAME):
        candidate = os.path.join(path, name)
        if os.path.isfile(candidate):
            return candidate
    shards = sorted(n for n in os.listdir(path) if n.endswith(".safetensors"))
    if not shards:
        raise FileNotFoundError(f"hipfile: the folder {path!r} holds no {INDEX_NAME}, {SINGLE_NAME} "
                                f"or other .safetensors file")
    if len(shards) == 1:
        return os.path.join(path, shards[0])
    return [os.path.join(path, n) for n in shards]
