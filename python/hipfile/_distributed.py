# SPDX-License-Identifier: MIT
"""load_model's use of torch.distributed: the rank and world size a load defaults to, which rank
reads each shared tensor (the same answer on every rank, computed without talking), and the
broadcasts that give every rank the tensors others read."""


_MAX_WORLD_SIZE = 2**32 - 1  # an unsigned int in <hipfile-safetensors/slice.hpp>


def _dist():
    import torch.distributed as dist

    return dist if dist.is_available() and dist.is_initialized() else None


def tensor_parallel_ranks(rank, world_size, group):
    """(rank, world_size) of a load: the arguments where given, else group's (the default group
    where group is None) when torch.distributed is initialized, else 0 and 1."""
    dist = _dist()
    if rank is None:
        rank = dist.get_rank(group) if dist else 0
    if world_size is None:
        world_size = dist.get_world_size(group) if dist else 1
    for what, value in (("rank", rank), ("world_size", world_size)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"hipfile: {what} must be an int, not {type(value).__name__}")
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError(f"hipfile: rank {rank} of world_size {world_size}: a rank is in [0, world_size)")
    if world_size > _MAX_WORLD_SIZE:
        raise ValueError(f"hipfile: world_size {world_size} is above {_MAX_WORLD_SIZE}, the most the library's "
                         f"tensor-parallel slices take")
    return rank, world_size


def sharing_group(group):
    """(rank, world_size, global rank of each group rank) of the group that shared reads use;
    RuntimeError where torch.distributed is not initialized (nothing to broadcast over)."""
    dist = _dist()
    if dist is None:
        raise RuntimeError("hipfile: shared_read=True broadcasts between the ranks of a process group: "
                           "call torch.distributed.init_process_group first")
    rank, world_size = dist.get_rank(group), dist.get_world_size(group)
    if group is None or group is dist.group.WORLD:
        return rank, world_size, list(range(world_size))
    to_global = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
    return rank, world_size, [to_global(group, r) for r in range(world_size)]


def assign_readers(sizes, world_size):
    """The rank that reads each of sizes (bytes, in checkpoint order): the largest first, each to
    the rank with the fewest bytes so far (the lowest such rank on a tie, the earlier tensor
    first among equal sizes), so every rank computes the same list and none reads more than its
    even share plus one tensor."""
    loads = [0] * world_size
    readers = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        reader = min(range(world_size), key=lambda r: (loads[r], r))
        readers[i] = reader
        loads[reader] += sizes[i]
    return readers


def broadcast_all(tensors, sources, global_ranks, group):
    """Broadcasts each tensor from its source (a group rank) to the group, all in flight at once
    over whatever backend the group runs, and waits for every one. Every rank passes the same
    tensors in the same order."""
    import torch.distributed as dist

    works = [dist.broadcast(t, src=global_ranks[s], group=group, async_op=True) for t, s in zip(tensors, sources)]
    for work in works:
        work.wait()
