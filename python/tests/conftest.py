# SPDX-License-Identifier: MIT
"""Shared fixtures: temporary files under $HIPFILE_TEST_DIR, byte patterns, and hip-cpu's test
interface (fault injection, live allocation counts) through ctypes on platform=cpu."""

import ctypes
import gc
import os
import uuid

import numpy as np
import pytest

import hipfile

HIP_ERROR_OUT_OF_MEMORY = 2
HIP_ERROR_INVALID_VALUE = 1


@pytest.fixture
def tmp_path_factory_dir():
    return os.environ.get("HIPFILE_TEST_DIR", "/var/tmp")


@pytest.fixture
def path(tmp_path_factory_dir):
    """A fresh file name, removed afterwards."""
    p = os.path.join(tmp_path_factory_dir, f"hipfile-py-{os.getpid()}-{uuid.uuid4().hex}.bin")
    yield p
    for q in (p, p + ".index.json"):
        if os.path.exists(q):
            os.unlink(q)


def pattern(n, seed=1):
    """n reproducible pseudo-random bytes."""
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def write_file(path, data):
    with open(path, "wb") as f:
        f.write(bytes(data))


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


class DLPackOnly:
    """Exposes only __dlpack__/__dlpack_device__ of what it wraps."""

    def __init__(self, inner):
        self.inner = inner

    def __dlpack__(self, **kwargs):
        return self.inner.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.inner.__dlpack_device__()


def hip_cpu_library():
    """The file that holds hip-cpu: the libhip-cpu the extension loaded (the Meson build), else the
    extension itself, which links hip-cpu statically and exports its test interface (a wheel)."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            if "libhip-cpu.so" in line:
                return line.split()[-1]
    return hipfile._hipfile.__file__


class HipCpu:
    """hip-cpu's <hip/hip_cpu.h>, found where the extension has it (hip_cpu_library)."""

    def __init__(self):
        self.lib = ctypes.CDLL(hip_cpu_library())
        self.lib.hipcpuInjectFault.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint, ctypes.c_int]
        self.lib.hipcpuLiveDeviceAllocations.restype = ctypes.c_size_t
        self.lib.hipcpuLiveDeviceAllocations.argtypes = [ctypes.c_int]
        self.lib.hipcpuCallCount.restype = ctypes.c_ulonglong
        self.lib.hipcpuCallCount.argtypes = [ctypes.c_char_p]

    def inject(self, api, err, nth=1, count=1):
        self.lib.hipcpuInjectFault(api.encode(), nth, count, err)

    def clear(self):
        self.lib.hipcpuClearFaults()

    def live(self, device=0):
        return self.lib.hipcpuLiveDeviceAllocations(device)

    def calls(self, api):
        return self.lib.hipcpuCallCount(api.encode())


@pytest.fixture
def hipcpu():
    if hipfile.platform != "cpu":
        pytest.skip("needs hip-cpu's test interface (platform=cpu)")
    h = HipCpu()
    # Buffers left in reference cycles by earlier tests are freed now, not under a test that
    # counts live allocations (the whole directory in one pytest run, as scripts/wheel_test.sh).
    gc.collect()
    yield h
    h.clear()
