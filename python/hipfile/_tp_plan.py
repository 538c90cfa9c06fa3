# SPDX-License-Identifier: MIT
"""Tensor-parallel plans: which slice of a checkpoint tensor a rank holds, from fnmatch-style
patterns of parameter names to layouts."""

from fnmatch import fnmatchcase

from . import _hipfile

LAYOUTS = ("column", "row", "vocabulary", "replicated")


def check_plan(tp_plan):
    """tp_plan as a list of (pattern, layout), in its order; TypeError or ValueError for a bad one."""
    if tp_plan is None:
        return []
    if not hasattr(tp_plan, "items"):
        raise TypeError(f"hipfile: tp_plan must be a mapping of name patterns to layouts, "
                        f"not {type(tp_plan).__name__}")
    plan = list(tp_plan.items())
    for pattern, layout in plan:
        if not isinstance(pattern, str):
            raise TypeError(f"hipfile: tp_plan patterns are str, not {type(pattern).__name__}")
        if layout not in LAYOUTS:
            raise ValueError(f"hipfile: tp_plan[{pattern!r}] is {layout!r}; a layout is one of "
                             f"{', '.join(LAYOUTS)}")
    return plan


def layout_of(name, plan):
    """The layout of the first pattern of plan that matches name (case-sensitive, as fnmatch
    matches on POSIX), or None where none does."""
    for pattern, layout in plan:
        if fnmatchcase(name, pattern):
            return layout
    return None


def rank_slice(shape, layout, rank, world_size):
    """(dim, start, stop) that rank holds of a tensor of shape under layout, or None where it
    holds the whole tensor (no layout, replicated, a layout the tensor's shape keeps whole, or
    a world of one)."""
    if layout is None or layout == "replicated" or world_size == 1 or not shape:
        return None
    dim, start, stop = _hipfile._tensor_parallel_slice(tuple(shape), layout, rank, world_size)
    if start == 0 and stop == shape[dim]:
        return None
    return dim, start, stop


def sliced_shape(shape, part):
    """shape with part's dimension cut to its length."""
    if part is None:
        return tuple(shape)
    dim, start, stop = part
    return tuple(shape[:dim]) + (stop - start,) + tuple(shape[dim + 1:])
