// SPDX-License-Identifier: MIT
// hipfile.DeviceBuffer and the DLPack view export that hipfile.Tensor uses.
#include "device_buffer.hpp"

#include <hip/hip_runtime_api.h>

#include <pybind11/stl.h>

#include <cstdint>

#include "binding.hpp"

namespace hipfile::py_binding {

PyDeviceBuffer::PyDeviceBuffer(std::size_t nbytes, int device) : nbytes_(nbytes), device_(device) {
  int count = 0;
  if (hipError_t e = hipGetDeviceCount(&count); e != hipSuccess) raise_hip(e, "DeviceBuffer: no HIP device");
  if (device < 0 || device >= count) {
    throw py::value_error("hipfile: DeviceBuffer(device=" + std::to_string(device) + "): there are " +
                          std::to_string(count) + " devices");
  }
  Result<DeviceBuffer> r;
  {
    py::gil_scoped_release nogil;
    r = DeviceBuffer::allocate(nbytes, device);
  }
  if (!r) raise_error(r.error(), "allocating " + std::to_string(nbytes) + " bytes on device " + std::to_string(device));
  buffer_ = std::move(*r);
}

namespace {

// hipMemcpy between this buffer (at offset) and host memory, GIL released.
void copy(void* dst, const void* src, std::size_t n, hipMemcpyKind kind, int device, const char* what) {
  if (n == 0) return;
  DeviceScope on_device(device, std::string("run ") + what);
  hipError_t e = hipSuccess;
  {
    py::gil_scoped_release nogil;
    e = hipMemcpy(dst, src, n, kind);
  }
  on_device.restore();
  if (e != hipSuccess) raise_hip(e, what);
}

// The range [offset, offset + size) of the buffer (size None: to the end), checked.
std::pair<std::size_t, std::size_t> host_range(const PyDeviceBuffer& self, py::handle offset, py::handle size) {
  const std::size_t off = to_size(offset, "offset");
  if (off > self.nbytes()) {
    throw py::value_error("hipfile: offset " + std::to_string(off) + " is beyond the buffer's " +
                          std::to_string(self.nbytes()) + " bytes");
  }
  const std::size_t n = size.is_none() ? self.nbytes() - off : to_size(size, "size");
  if (n > self.nbytes() - off) {
    throw py::value_error("hipfile: size " + std::to_string(n) + " at offset " + std::to_string(off) +
                          " runs past the buffer's " + std::to_string(self.nbytes()) + " bytes");
  }
  return {off, n};
}

py::object copy_to_host(py::object self_obj, py::object out, py::handle offset, py::handle size) {
  auto& self = self_obj.cast<PyDeviceBuffer&>();
  const auto [off, n] = host_range(self, offset, size);
  const void* src = static_cast<const char*>(self.data()) + off;
  if (out.is_none()) {
    PyObject* raw = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(n));
    if (!raw) throw py::error_already_set();
    auto result = py::reinterpret_steal<py::bytes>(raw);
    copy(PyBytes_AS_STRING(raw), src, n, hipMemcpyDeviceToHost, self.device(), "DeviceBuffer.copy_to_host");
    return result;
  }
  Buffer dst = resolve_buffer(out, Access::store_into);
  if (dst.device) throw py::value_error("hipfile: copy_to_host(out) needs host memory");
  if (dst.nbytes < n) {
    throw py::value_error("hipfile: copy_to_host(out): out holds " + std::to_string(dst.nbytes) + " bytes, fewer than the " +
                          std::to_string(n) + " to copy");
  }
  copy(dst.ptr, src, n, hipMemcpyDeviceToHost, self.device(), "DeviceBuffer.copy_to_host");
  return out;
}

void copy_from_host(PyDeviceBuffer& self, py::handle src, py::handle offset) {
  Buffer b = resolve_buffer(src, Access::read_from);
  if (b.device) throw py::value_error("hipfile: copy_from_host(src) needs host memory");
  const auto [off, room] = host_range(self, offset, py::none());
  if (b.nbytes > room) {
    throw py::value_error("hipfile: copy_from_host(src): src holds " + std::to_string(b.nbytes) +
                          " bytes, more than the buffer's " + std::to_string(room) + " bytes from offset " + std::to_string(off));
  }
  copy(static_cast<char*>(self.data()) + off, b.ptr, b.nbytes, hipMemcpyHostToDevice, self.device(),
       "DeviceBuffer.copy_from_host");
}

py::dict cuda_array_interface(const PyDeviceBuffer& self) {
  py::dict d;
  d["shape"] = py::make_tuple(self.nbytes());
  d["typestr"] = "|u1";
  d["data"] = py::make_tuple(reinterpret_cast<std::uintptr_t>(self.data()), false);
  d["strides"] = py::none();
  d["version"] = 3;
  d["stream"] = py::none();  // nothing pending: hipfile's copies and reads return when done
  return d;
}

// The bytes of a view of @p shape with @p bits per element; ValueError for a negative extent,
// elements that are not whole bytes or a size past size_t (a wrapped product would pass for a
// small one).
std::size_t view_bytes(int bits, const std::vector<std::int64_t>& shape) {
  if (bits <= 0 || bits % 8 != 0) throw py::value_error("hipfile: view elements of " + std::to_string(bits) + " bits are not whole bytes");
  std::size_t n = static_cast<std::size_t>(bits) / 8;
  for (auto d : shape) {
    if (d < 0) throw py::value_error("hipfile: view with a negative extent " + std::to_string(d));
    if (d != 0 && n > SIZE_MAX / static_cast<std::size_t>(d)) throw py::value_error("hipfile: view size overflows");
    n *= static_cast<std::size_t>(d);
  }
  return n;
}

// A typed view [offset, offset + prod(shape) * bits / 8) of a DeviceBuffer as a capsule that
// keeps the DeviceBuffer alive; hipfile.Tensor.__dlpack__ is this.
py::capsule export_view(py::object owner, std::size_t offset, int code, int bits, std::vector<std::int64_t> shape,
                        py::object max_version, py::object dl_device, py::object copy) {
  auto& buf = owner.cast<PyDeviceBuffer&>();
  const std::size_t n = view_bytes(bits, shape);
  if (offset > buf.nbytes() || n > buf.nbytes() - offset) {
    throw py::value_error("hipfile: view of " + std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                          " runs past the buffer's " + std::to_string(buf.nbytes()) + " bytes");
  }
  const bool versioned = dlpack_wants_versioned(max_version, dl_device, copy, buf.device());
  void* data = static_cast<char*>(buf.data()) + offset;
  return export_dlpack(data, buf.device(), {static_cast<std::uint8_t>(code), static_cast<std::uint8_t>(bits), 1},
                       shape, owner, versioned);
}

}  // namespace

void bind_device_buffer(py::module_& m) {
  py::class_<PyDeviceBuffer>(m, "DeviceBuffer", R"(Device memory of nbytes bytes on a HIP device (hipMalloc).

Exposes __cuda_array_interface__ (one-dimensional uint8) and __dlpack__, so
cupy.asarray(buf) and torch.from_dlpack(buf) view it without a copy; the
memory is freed when the buffer and every such view are gone.)")
      .def(py::init([](py::handle nbytes, py::handle device) {
             return new PyDeviceBuffer(to_size(nbytes, "nbytes"), to_int(device, "device"));
           }),
           py::arg("nbytes"), py::arg("device") = 0)
      .def_property_readonly("nbytes", &PyDeviceBuffer::nbytes, "Size in bytes.")
      .def_property_readonly("device", &PyDeviceBuffer::device, "The HIP device index.")
      .def_property_readonly("ptr", [](const PyDeviceBuffer& b) { return reinterpret_cast<std::uintptr_t>(b.data()); },
                             "The device address (an int; never dereference it on the host).")
      .def("__len__", &PyDeviceBuffer::nbytes)
      .def("__repr__", [](const PyDeviceBuffer& b) {
        return "<hipfile.DeviceBuffer " + std::to_string(b.nbytes()) + " bytes on device " + std::to_string(b.device()) + ">";
      })
      .def("copy_to_host", &copy_to_host, py::arg("out") = py::none(), py::kw_only(), py::arg("offset") = 0,
           py::arg("size") = py::none(),
           "Copies size bytes (default: to the end) from offset to host memory: into `out` (a writable host "
           "buffer at least that large, returned) or, without it, into new bytes.")
      .def("copy_from_host", &copy_from_host, py::arg("src"), py::kw_only(), py::arg("offset") = 0,
           "Copies the whole host buffer `src` into this buffer at offset.")
      .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
      .def("__dlpack__",
           [](py::object self, py::object stream, py::object max_version, py::object dl_device, py::object copy) {
             (void)stream;  // nothing is pending on any stream
             auto& b = self.cast<PyDeviceBuffer&>();
             const bool versioned = dlpack_wants_versioned(max_version, dl_device, copy, b.device());
             return export_dlpack(b.data(), b.device(), {dlpack::kUInt, 8, 1},
                                  {static_cast<std::int64_t>(b.nbytes())}, self, versioned);
           },
           py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", [](const PyDeviceBuffer& b) { return py::make_tuple(dlpack_device_type(), b.device()); });

  m.def("_export_view", &export_view, py::arg("buffer"), py::arg("offset"), py::arg("code"), py::arg("bits"),
        py::arg("shape"), py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(),
        py::arg("copy") = py::none());
}

}  // namespace hipfile::py_binding
