// SPDX-License-Identifier: MIT
// The _hipfile extension module; the hipfile package (hipfile/__init__.py) re-exports it.
#include <hip/hip_runtime_api.h>
#include <hipfile/hipfile.h>

#include "binding.hpp"

#ifndef HIPFILE_PY_VERSION
#error "the build defines HIPFILE_PY_VERSION (meson's project version)"
#endif

namespace {

int device_count() {
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess) {
    (void)hipGetLastError();
    return 0;
  }
  return n;
}

int current_device() {
  int device = 0;
  if (hipError_t e = hipGetDevice(&device); e != hipSuccess) hipfile::py_binding::raise_hip(e, "hipGetDevice");
  return device;
}

// A value of the wrong type that reached a cast the binding did not check first would be
// pybind11's cast_error, which it raises as RuntimeError; it is the caller's TypeError.
void translate_cast_errors(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const pybind11::cast_error& e) {
    PyErr_SetString(PyExc_TypeError, (std::string("hipfile: ") + e.what()).c_str());
  }
}

}  // namespace

PYBIND11_MODULE(_hipfile, m) {
  using namespace hipfile::py_binding;
  m.doc() = "GPU-direct file I/O (hipFile) for Python: the compiled part of the hipfile package.";
  m.attr("__version__") = HIPFILE_PY_VERSION;
  m.attr("platform") = HIPFILE_PY_PLATFORM;
  m.attr("dlpack_device_type") = dlpack_device_type();
  pybind11::register_local_exception_translator(&translate_cast_errors);
  m.def("device_count", &device_count, "Number of HIP devices (0 when there is none or no runtime).");
  m.def("_current_device", &current_device, "hipGetDevice: the calling thread's current HIP device.");
  m.def("driver_open", [] {
    if (auto r = hipfile::check(hipFileDriverOpen()); !r) raise_error(r.error(), "opening the driver");
  }, "hipFileDriverOpen: opens the driver (I/O also opens it implicitly).");
  m.def("driver_close", [] {
    if (auto r = hipfile::check(hipFileDriverClose()); !r) raise_error(r.error(), "closing the driver");
  }, "hipFileDriverClose: drops one reference to the open driver.");
  m.def("library_version", [] {
    unsigned major = 0, minor = 0, patch = 0;
    if (auto r = hipfile::check(hipFileGetVersion(&major, &minor, &patch)); !r) raise_error(r.error(), "hipFileGetVersion");
    return py::make_tuple(major, minor, patch);
  }, "The loaded library's hipFileGetVersion as (major, minor, patch).");
  bind_errors(m);
  bind_device_buffer(m);
  bind_file(m);
  bind_future(m);
  bind_registration(m);
  bind_stats(m);
#ifdef HIPFILE_PY_SAFETENSORS
  bind_safetensors(m);
#endif
}
