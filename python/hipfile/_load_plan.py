# SPDX-License-Identifier: MIT
"""Matching a module's state to a checkpoint, as Module.load_state_dict does: which checkpoint
tensor (or rank's slice of one) fills each Slot, which names are missing or unexpected, and the
errors load_state_dict would raise, in its words."""

import math
from dataclasses import dataclass

from ._tensor import DTYPES
from ._tp_plan import layout_of, rank_slice, sliced_shape


@dataclass
class Job:
    """One Slot filled from checkpoint tensor `name`: its part (dim, start, stop) or None for the
    whole, the shape that gives, and the checkpoint's dtype (safetensors and torch names)."""

    name: str
    slot: object
    part: object
    shape: tuple
    file_dtype: str
    torch_dtype: object
    nbytes: int  # of the part


@dataclass
class Entry:
    """A checkpoint tensor, as _Checkpoint.tensors() describes it."""

    name: str
    dtype: str
    shape: tuple
    shard: int
    offset: int
    nbytes: int


def plan_load(slots, entries, plan, rank, world_size):
    """(jobs, missing, unexpected, errors) of filling slots (module_slots) from entries (name to
    Entry, in checkpoint order) under the tp plan. A tied Slot is filled once, from the first of
    its names the checkpoint holds; it is missing (under all its names) only when the checkpoint
    holds none of them."""
    import torch

    jobs, missing, errors, seen = [], [], [], set()
    for slot in slots.values():
        if id(slot) in seen:
            continue
        seen.add(id(slot))
        present = [n for n in slot.names if n in entries]
        if not present:
            missing.extend(slot.names)
            continue
        job, error = _job(torch, slot, entries[present[0]], plan, rank, world_size)
        if error:
            errors.append(error)
        else:
            jobs.append(job)
    unexpected = [n for n in entries if n not in slots]
    return jobs, missing, unexpected, errors


def _job(torch, slot, entry, plan, rank, world_size):
    """(Job, None), or (None, the error message) where the Slot cannot take the tensor."""
    layout = layout_of(entry.name, plan)
    part = rank_slice(entry.shape, layout, rank, world_size)
    for other in slot.names:
        if rank_slice(entry.shape, layout_of(other, plan), rank, world_size) != part:
            return None, (f"{entry.name} is tied to {other}, which tp_plan slices otherwise "
                          f"({layout_of(other, plan)} against {layout}): one tensor holds one slice")
    shape = sliced_shape(entry.shape, part)
    if tuple(slot.tensor.shape) != shape:
        return None, _size_mismatch(torch, entry, part, layout, slot.tensor.shape, rank, world_size)
    torch_name = DTYPES.get(entry.dtype, (None,) * 5)[4]
    torch_dtype = getattr(torch, torch_name, None) if torch_name else None
    if torch_dtype is None:
        return None, f"{entry.name}: the checkpoint's dtype {entry.dtype} has no equivalent in this PyTorch"
    size = DTYPES[entry.dtype][0]
    nbytes = entry.nbytes if part is None else math.prod(shape) * size
    return Job(entry.name, slot, part, shape, entry.dtype, torch_dtype, nbytes), None


def _size_mismatch(torch, entry, part, layout, model_shape, rank, world_size):
    """load_state_dict's size mismatch message; with a slice, which slice was meant."""
    text = (f"size mismatch for {entry.name}: copying a param with shape {torch.Size(sliced_shape(entry.shape, part))} "
            f"from checkpoint, the shape in current model is {torch.Size(model_shape)}.")
    if part is not None:
        dim, start, stop = part
        text += (f" (rank {rank} of {world_size} holds elements [{start}, {stop}) of dimension {dim} of the "
                 f"checkpoint's {torch.Size(entry.shape)} under the {layout} layout)")
    return text


def state_dict_error(module, missing, unexpected, errors, strict):
    """The RuntimeError load_state_dict raises for these, or None where it raises none."""
    messages = list(errors)
    if strict and unexpected:
        messages.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
    if strict and missing:
        messages.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    if not messages:
        return None
    return RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(module).__name__,
                                                                              "\n\t".join(messages)))
