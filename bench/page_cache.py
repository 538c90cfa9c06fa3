# SPDX-License-Identifier: MIT
"""A file's pages out of the page cache (a cold read) or in it (a hot one), for the Python
benchmarks in bench/."""

import os


def drop(path):
    """Writes back and drops the file's cached pages, so the next read comes from the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def warm(path):
    """Reads the whole file once, so the next read finds it in the page cache."""
    buf = bytearray(64 << 20)
    with open(path, "rb", buffering=0) as f:
        while f.readinto(buf):
            pass
