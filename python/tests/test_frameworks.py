# SPDX-License-Identifier: MIT
"""PyTorch tensors and CuPy arrays as buffers, DLPack both ways, and load_safetensors compared
with safetensors' own loader. Each test skips where its framework (or a GPU it can use) is
missing; on the H200 they all run."""

import gc
import os

import pytest

import hipfile
from conftest import DLPackOnly, pattern, read_file, write_file

GPU = hipfile.platform in ("nvidia", "amd")


def torch_gpu():
    torch = pytest.importorskip("torch")
    if not GPU or not torch.cuda.is_available():
        pytest.skip("needs PyTorch with a GPU and a GPU build of hipfile")
    return torch


def cupy_gpu():
    if not GPU:
        pytest.skip("needs a GPU build of hipfile")
    return pytest.importorskip("cupy")


def test_torch_cpu_tensors_are_host_buffers(path):
    torch = pytest.importorskip("torch")
    data = pattern(4096, seed=71)
    write_file(path, data)
    t = torch.zeros(1024, dtype=torch.float32)
    with hipfile.File(path, "r+") as f:
        assert f.read(t) == 4096
        assert f.write(t, file_offset=4096) == 4096
    assert t.numpy().tobytes() == data.tobytes() and read_file(path)[4096:] == data.tobytes()


def test_torch_cuda_tensor_round_trip_through_both_protocols(path):
    torch = torch_gpu()
    data = pattern(3 << 20, seed=72)
    write_file(path, data)
    expect = torch.from_numpy(data.copy()).cuda()
    for wrap in (lambda t: t, DLPackOnly):
        t = torch.zeros(data.size, dtype=torch.uint8, device="cuda")
        with hipfile.File(path) as f:
            assert f.read(wrap(t)) == data.size
        assert torch.equal(t, expect)
    with hipfile.File(path, "w") as f:
        assert f.write(expect.view(torch.float32)) == data.size
    assert read_file(path) == data.tobytes()


def test_torch_non_contiguous_tensors_are_refused(path):
    torch = torch_gpu()
    write_file(path, bytes(64))
    t = torch.zeros((4, 4), dtype=torch.float32, device="cuda")
    with hipfile.File(path) as f:
        with pytest.raises(ValueError, match="not C-contiguous"):
            f.read(t.T)
        with pytest.raises(ValueError, match="not C-contiguous"):
            f.read(DLPackOnly(t[:, 1]))


def test_torch_from_dlpack_shares_a_device_buffer(path):
    torch = torch_gpu()
    buf = hipfile.DeviceBuffer(1024)
    t = torch.from_dlpack(buf)
    assert t.dtype == torch.uint8 and t.shape == (1024,) and t.data_ptr() == buf.ptr and t.is_cuda
    t.fill_(7)
    torch.cuda.synchronize()
    assert buf.copy_to_host() == bytes([7]) * 1024
    del buf
    gc.collect()
    assert int(t.sum()) == 7 * 1024  # the tensor keeps the memory


def test_cupy_arrays_round_trip_and_view_device_buffers(path):
    cupy = cupy_gpu()
    data = pattern(1 << 20, seed=73)
    write_file(path, data)
    a = cupy.zeros(data.size // 4, dtype=cupy.float32)
    with hipfile.File(path) as f:
        assert f.read(a) == data.size
        assert f.read(DLPackOnly(a)) == data.size
    assert cupy.asnumpy(a).tobytes() == data.tobytes()
    buf = hipfile.DeviceBuffer(256)
    buf.copy_from_host(bytes(range(256)))
    assert cupy.asnumpy(cupy.asarray(buf)).tobytes() == bytes(range(256))
    assert cupy.asnumpy(cupy.from_dlpack(buf)).tobytes() == bytes(range(256))
    with pytest.raises(ValueError, match="not C-contiguous"):
        with hipfile.File(path) as f:
            f.read(a[::2])


def make_checkpoint(torch, path):
    from safetensors.torch import save_file

    g = torch.Generator().manual_seed(5)
    tensors = {
        "embed": torch.randn(1000, 64, generator=g).to(torch.bfloat16),
        "w32": torch.randn(33, 17, generator=g),
        "w16": torch.randn(7, 5, generator=g).half(),
        "ids": torch.arange(100, dtype=torch.int64),
        "mask": torch.rand(50, generator=g) > 0.5,
        "scalar": torch.tensor(3.5),
        "empty": torch.zeros(0, 4),
        "f8": torch.randn(64, generator=g).to(torch.float8_e4m3fn),
    }
    save_file(tensors, path, metadata={"format": "pt"})
    return tensors


def test_load_safetensors_gives_torch_tensors_equal_to_safetensors(path):
    torch = torch_gpu()
    st = pytest.importorskip("safetensors.torch")
    make_checkpoint(torch, path)
    ours = hipfile.load_safetensors(path, device="cuda:0")
    theirs = st.load_file(path, device="cuda:0")
    assert list(ours) == list(theirs) or set(ours) == set(theirs)
    for name, t in theirs.items():
        assert ours[name].dtype == t.dtype and ours[name].shape == t.shape and ours[name].is_cuda
        assert torch.equal(ours[name].view(torch.uint8) if t.dtype == torch.float8_e4m3fn else ours[name],
                           t.view(torch.uint8) if t.dtype == torch.float8_e4m3fn else t), name


def test_save_safetensors_from_cuda_tensors_is_read_by_safetensors(path):
    torch = torch_gpu()
    st = pytest.importorskip("safetensors.torch")
    tensors = {k: v.cuda() for k, v in make_checkpoint(torch, path).items()}
    out = path + ".ours"
    try:
        hipfile.save_safetensors(tensors, out, metadata={"by": "hipfile"})
        back = st.load_file(out, device="cuda:0")
        for name, t in tensors.items():
            assert torch.equal(back[name].reshape(-1).view(torch.uint8), t.reshape(-1).view(torch.uint8)), name
    finally:
        if os.path.exists(out):
            os.unlink(out)


def test_freeing_loaded_torch_tensors_frees_the_device_memory(path):
    torch = torch_gpu()
    from safetensors.torch import save_file

    save_file({"big": torch.zeros(64 << 20, dtype=torch.float32)}, path)  # 256 MiB
    # A first load brings up what the library keeps for the process (its runtime's context
    # state, the engine's streams and staging): that is not the tensors' memory.
    del hipfile.load_safetensors(path)["big"]
    gc.collect()
    torch.cuda.synchronize()
    free_before = torch.cuda.mem_get_info()[0]
    got = hipfile.load_safetensors(path)
    assert torch.cuda.mem_get_info()[0] < free_before - (200 << 20)
    del got
    gc.collect()
    torch.cuda.synchronize()
    assert torch.cuda.mem_get_info()[0] > free_before - (50 << 20)

