// SPDX-License-Identifier: MIT
// Turning a Python object into (pointer, bytes): hipfile.DeviceBuffer, then
// __cuda_array_interface__ (CuPy, PyTorch, Numba), __dlpack__ on a device, the buffer protocol
// (bytes-like objects, NumPy arrays), and last __dlpack__ on the CPU. Only C-contiguous memory
// is accepted: the I/O moves one byte range.
#include <hip/hip_runtime_api.h>

#include <cstring>
#include <new>

#include "binding.hpp"
#include "device_buffer.hpp"

namespace hipfile::py_binding {

namespace {

[[noreturn]] void not_contiguous(py::handle obj) {
  throw py::value_error("hipfile: the " + type_name(obj) +
                        " buffer is not C-contiguous; pass a contiguous one (numpy.ascontiguousarray, "
                        "tensor.contiguous(), cupy.ascontiguousarray)");
}

[[noreturn]] void read_only(py::handle obj) {
  throw py::value_error("hipfile: the " + type_name(obj) + " buffer is read-only and cannot be read into");
}

// Compact row-major strides in bytes for shape/itemsize; dimensions of extent 1 may carry any
// stride, and an empty array is contiguous whatever its strides.
bool c_contiguous(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides, std::int64_t itemsize) {
  std::int64_t expect = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) return true;
  }
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expect) return false;
    expect *= shape[i];
  }
  return true;
}

std::size_t product(const std::vector<std::int64_t>& shape, std::size_t itemsize, py::handle obj) {
  std::size_t n = itemsize;
  for (std::int64_t d : shape) {
    if (d < 0) throw py::value_error("hipfile: the " + type_name(obj) + " buffer has a negative extent");
    if (d != 0 && n > SIZE_MAX / static_cast<std::size_t>(d)) throw py::value_error("hipfile: buffer size overflows");
    n *= static_cast<std::size_t>(d);
  }
  return n;
}

// The device of memory at ptr; -1 for host memory HIP does not know.
int device_of(const void* ptr, bool* is_device) {
  hipPointerAttribute_t attr{};
  *is_device = false;
  if (!ptr || hipPointerGetAttributes(&attr, ptr) != hipSuccess) {
    (void)hipGetLastError();
    return -1;
  }
#if HIP_VERSION_MAJOR >= 6
  *is_device = attr.type == hipMemoryTypeDevice;
#else
  *is_device = attr.memoryType == hipMemoryTypeDevice && !attr.isManaged;  // ROCm 5's field
#endif
  return attr.device;
}

// Work queued by the producer (a kernel filling the tensor, say) must finish before the
// engine's own streams touch the memory; CUDA array interface v3 names the stream, and the
// DLPack import asks the producer to order itself before the legacy default stream.
void sync_producer_stream(int device, std::uintptr_t stream) {
  // A default stream is the current device's: the buffer's device must be current.
  DeviceScope on_device(device, "synchronize the buffer's stream");
  hipStream_t s = stream <= 2 ? nullptr : reinterpret_cast<hipStream_t>(stream);  // 1, 2: the default streams
  hipError_t e = hipSuccess;
  {
    py::gil_scoped_release nogil;
    e = hipStreamSynchronize(s);
  }
  on_device.restore();
  if (e != hipSuccess) raise_hip(e, "synchronizing the buffer's stream");
}

Buffer parse_cuda_array_interface(py::handle obj, py::dict cai, Access access, std::vector<std::int64_t>& shape,
                                  std::size_t& itemsize, std::uintptr_t& stream);

Buffer from_cuda_array_interface(py::handle obj, Access access) {
  py::dict cai;
  Buffer b;
  std::vector<std::int64_t> shape;
  std::size_t itemsize = 0;
  std::uintptr_t stream = 0;
  try {
    cai = obj.attr("__cuda_array_interface__").cast<py::dict>();
    b = parse_cuda_array_interface(obj, cai, access, shape, itemsize, stream);
  } catch (const py::cast_error& e) {
    throw py::type_error("hipfile: malformed __cuda_array_interface__ of a " + type_name(obj) + ": " + e.what());
  } catch (py::error_already_set& e) {  // a converting cast (to tuple, to dict) that Python refused
    if (!e.matches(PyExc_TypeError)) throw;
    throw py::type_error("hipfile: malformed __cuda_array_interface__ of a " + type_name(obj) + ": " + e.what());
  }
  b.nbytes = product(shape, itemsize, obj);
  b.device_id = device_of(b.ptr, &b.device);
  b.owner = py::reinterpret_borrow<py::object>(obj);
  if (b.nbytes != 0) sync_producer_stream(b.device_id, stream);
  return b;
}

std::int32_t dlpack_device_of(py::handle obj) {
  try {
    return obj.attr("__dlpack_device__")().cast<py::tuple>()[0].cast<std::int32_t>();
  } catch (const py::cast_error& e) {
    throw py::type_error("hipfile: malformed __dlpack_device__() of a " + type_name(obj) + ": " + e.what());
  } catch (py::error_already_set& e) {  // a converting cast to tuple that Python refused
    if (!e.matches(PyExc_TypeError)) throw;
    throw py::type_error("hipfile: malformed __dlpack_device__() of a " + type_name(obj) + ": " + e.what());
  }
}

// The checks and fields of a __cuda_array_interface__ dict; a wrong type raises cast_error.
Buffer parse_cuda_array_interface(py::handle obj, py::dict cai, Access access, std::vector<std::int64_t>& shape,
                                  std::size_t& itemsize, std::uintptr_t& stream) {
  if (cai.contains("mask") && !cai["mask"].is_none()) {
    throw py::value_error("hipfile: masked __cuda_array_interface__ buffers are not supported");
  }
  auto data = cai["data"].cast<py::tuple>();
  const auto ptr = data[0].cast<std::uintptr_t>();
  const bool readonly = data[1].cast<bool>();
  for (auto d : cai["shape"].cast<py::tuple>()) shape.push_back(d.cast<std::int64_t>());
  const std::string typestr = cai["typestr"].cast<std::string>();
  itemsize = typestr.size() > 2 ? std::stoul(typestr.substr(2)) : 0;
  if (itemsize == 0) throw py::value_error("hipfile: unsupported __cuda_array_interface__ typestr '" + typestr + "'");
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    std::vector<std::int64_t> strides;
    for (auto s : cai["strides"].cast<py::tuple>()) strides.push_back(s.cast<std::int64_t>());
    if (strides.size() != shape.size() || !c_contiguous(shape, strides, static_cast<std::int64_t>(itemsize))) {
      not_contiguous(obj);
    }
  }
  if (readonly && access == Access::store_into) read_only(obj);
  Buffer b;
  b.ptr = reinterpret_cast<void*>(ptr);
  if (cai.contains("stream") && !cai["stream"].is_none()) stream = cai["stream"].cast<std::uintptr_t>();
  return b;
}

bool dlpack_device_is_host(std::int32_t type) {
  return type == dlpack::kCPU || type == dlpack::kCUDAHost || type == dlpack::kROCMHost;
}

Buffer from_dlpack(py::handle obj, std::int32_t device_type) {
  if (device_type != dlpack::kCPU && device_type != dlpack::kCUDA && device_type != dlpack::kCUDAHost &&
      device_type != dlpack::kROCM && device_type != dlpack::kROCMHost && device_type != dlpack::kCUDAManaged) {
    throw py::type_error("hipfile: unsupported DLPack device type " + std::to_string(device_type) + " of a " +
                         type_name(obj));
  }
  // CUDA producers order their work before the legacy default stream (1); for others the
  // default (None) means the same.
  py::object capsule = device_type == dlpack::kCUDA ? obj.attr("__dlpack__")(py::arg("stream") = 1)
                                                    : obj.attr("__dlpack__")();
  auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleName));
  if (!managed) throw py::error_already_set();
  const dlpack::Tensor& t = managed->dl_tensor;
  if (t.dtype.bits % 8 != 0 || t.dtype.lanes == 0) {
    throw py::value_error("hipfile: DLPack dtype with " + std::to_string(t.dtype.bits) + "-bit elements is not byte-addressable");
  }
  const std::size_t itemsize = t.dtype.bits / 8u * t.dtype.lanes;
  std::vector<std::int64_t> shape(t.shape, t.shape + t.ndim);
  if (t.strides) {
    std::vector<std::int64_t> strides(t.strides, t.strides + t.ndim);
    for (auto& s : strides) s *= static_cast<std::int64_t>(itemsize);
    if (!c_contiguous(shape, strides, static_cast<std::int64_t>(itemsize))) not_contiguous(obj);
  }
  Buffer b;
  b.ptr = static_cast<char*>(t.data) + t.byte_offset;
  b.nbytes = product(shape, itemsize, obj);
  b.device = !dlpack_device_is_host(t.device.device_type);
  b.device_id = b.device ? t.device.device_id : -1;
  // The capsule stays unconsumed: its destructor hands the tensor back to the producer once
  // the I/O (and any future holding this Buffer) is done with it.
  b.owner = py::make_tuple(obj, capsule);
  if (device_type == dlpack::kCUDA && b.nbytes != 0) sync_producer_stream(b.device_id, 0);
  return b;
}

Buffer from_buffer_protocol(py::handle obj, Access access) {
  auto* view = new Py_buffer{};
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_RECORDS_RO) != 0) {
    delete view;
    throw py::error_already_set();
  }
  py::capsule holder(view, [](void* p) {
    PyBuffer_Release(static_cast<Py_buffer*>(p));
    delete static_cast<Py_buffer*>(p);
  });
  if (!PyBuffer_IsContiguous(view, 'C')) not_contiguous(obj);
  if (view->readonly && access == Access::store_into) read_only(obj);
  Buffer b;
  b.ptr = view->buf;
  b.nbytes = static_cast<std::size_t>(view->len);
  b.owner = holder;
  return b;
}

}  // namespace

Buffer resolve_buffer(py::handle obj, Access access) {
  if (py::isinstance<PyDeviceBuffer>(obj)) {
    auto& d = obj.cast<PyDeviceBuffer&>();
    return Buffer{d.data(), d.nbytes(), true, d.device(), py::reinterpret_borrow<py::object>(obj)};
  }
  if (py::hasattr(obj, "__cuda_array_interface__")) {
    return from_cuda_array_interface(obj, access);
  }
  std::int32_t dl_type = 0;
  if (py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__dlpack_device__")) {
    dl_type = dlpack_device_of(obj);
    if (!dlpack_device_is_host(dl_type)) return from_dlpack(obj, dl_type);
  }
  if (PyObject_CheckBuffer(obj.ptr())) return from_buffer_protocol(obj, access);
  if (dl_type != 0) return from_dlpack(obj, dl_type);
  throw py::type_error("hipfile: a " + type_name(obj) +
                       " is not a buffer: pass an object with __cuda_array_interface__ or __dlpack__ (CuPy, "
                       "PyTorch, hipfile.DeviceBuffer) or a bytes-like / NumPy host buffer");
}

}  // namespace hipfile::py_binding
