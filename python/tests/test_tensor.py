# SPDX-License-Identifier: MIT
"""hipfile.Tensor built by hand over a DeviceBuffer: the shape, size and room checks, and the
DLPack view export behind it."""

import numpy as np
import pytest

import hipfile


def test_a_tensor_built_over_a_device_buffer_views_its_bytes():
    buf = hipfile.DeviceBuffer(32)
    buf.copy_from_host(np.arange(8, dtype=np.float32))
    t = hipfile.Tensor(buf, 8, "F32", (2, 3))
    assert (t.dtype, t.shape, t.nbytes, t.device) == ("F32", (2, 3), 24, 0)
    assert t.data_ptr == buf.ptr + 8
    assert np.array_equal(t.to_host(), np.arange(2, 8, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("shape", [(-1,), (4, -2), (-1, -1)])
def test_negative_dimensions_are_refused(shape):
    with pytest.raises(ValueError, match="^hipfile.Tensor: negative dimension -[12] in shape "):
        hipfile.Tensor(hipfile.DeviceBuffer(16), 0, "U8", shape)


def test_a_size_that_disagrees_with_the_shape_is_refused():
    buf = hipfile.DeviceBuffer(16)
    with pytest.raises(ValueError, match=r"^hipfile.Tensor: shape \(2, 2\) of F32 holds 16 bytes, not 8$"):
        hipfile.Tensor(buf, 0, "F32", (2, 2), nbytes=8)
    # A product that wraps in 64 bits must not pass for the 16 bytes the buffer holds.
    with pytest.raises(ValueError, match="^hipfile.Tensor: shape .* holds 18446744073709551616 bytes, not 16$"):
        hipfile.Tensor(buf, 0, "U8", (1 << 32, 1 << 32), nbytes=16)


def test_a_view_outside_the_buffer_is_refused():
    buf = hipfile.DeviceBuffer(16)
    with pytest.raises(ValueError, match="^hipfile.Tensor: 16 bytes at offset 4 run past the buffer's 16 bytes$"):
        hipfile.Tensor(buf, 4, "F32", (4,))
    with pytest.raises(ValueError, match="^hipfile.Tensor: offset must be >= 0, got -4$"):
        hipfile.Tensor(buf, -4, "U8", (4,))
    with pytest.raises(TypeError, match="^hipfile.Tensor: buffer must be a hipfile.DeviceBuffer, not bytes$"):
        hipfile.Tensor(b"0123456789abcdef", 0, "U8", (16,))


def test_packed_types_need_their_byte_count():
    buf = hipfile.DeviceBuffer(16)
    assert hipfile.Tensor(buf, 0, "F4", (32,), nbytes=16).nbytes == 16
    with pytest.raises(ValueError, match="^hipfile.Tensor: F4 packs its elements: give nbytes$"):
        hipfile.Tensor(buf, 0, "F4", (32,))


@pytest.mark.parametrize("shape", [[1 << 32, 1 << 32], [1 << 62, 4], [-1, -1], [-4]])
def test_the_view_export_checks_its_size_without_wrapping(shape):
    buf = hipfile.DeviceBuffer(16)
    with pytest.raises(ValueError, match="^hipfile: view "):
        hipfile._hipfile._export_view(buf, 0, 1, 8, shape)
    with pytest.raises(ValueError, match="^hipfile: view "):
        hipfile._hipfile._export_view(buf, 0, 1, 12, [1])  # not whole bytes


def test_a_tensor_exports_exactly_its_bytes():
    buf = hipfile.DeviceBuffer(16)
    capsule = hipfile.Tensor(buf, 4, "I16", (2, 3)).__dlpack__()
    assert type(capsule).__name__ == "PyCapsule"
