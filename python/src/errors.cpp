// SPDX-License-Identifier: MIT
// The bridge from hipfile::Error to the Python exception hipfile.Error (defined in
// hipfile/_error.py, an OSError subclass), and the table of op error names behind
// hipfile.OpError.
#include <hipfile/hipfile.h>

#include <hip/hip_runtime_api.h>

#include <climits>
#include <utility>

#include "binding.hpp"

namespace hipfile::py_binding {

namespace {

// hipFileOpError_t by name, without the "hipFile" prefix; hipfile.OpError is built from it.
constexpr std::pair<const char*, hipFileOpError_t> kOpErrors[] = {
    {"Success", hipFileSuccess},
    {"DriverNotInitialized", hipFileDriverNotInitialized},
    {"DriverInvalidProps", hipFileDriverInvalidProps},
    {"DriverUnsupportedLimit", hipFileDriverUnsupportedLimit},
    {"DriverVersionMismatch", hipFileDriverVersionMismatch},
    {"DriverVersionReadError", hipFileDriverVersionReadError},
    {"DriverClosing", hipFileDriverClosing},
    {"PlatformNotSupported", hipFilePlatformNotSupported},
    {"IONotSupported", hipFileIONotSupported},
    {"DeviceNotSupported", hipFileDeviceNotSupported},
    {"DriverError", hipFileDriverError},
    {"HipDriverError", hipFileHipDriverError},
    {"HipPointerInvalid", hipFileHipPointerInvalid},
    {"HipMemoryTypeInvalid", hipFileHipMemoryTypeInvalid},
    {"HipPointerRangeError", hipFileHipPointerRangeError},
    {"HipContextMismatch", hipFileHipContextMismatch},
    {"InvalidMappingSize", hipFileInvalidMappingSize},
    {"InvalidMappingRange", hipFileInvalidMappingRange},
    {"InvalidFileType", hipFileInvalidFileType},
    {"InvalidFileOpenFlag", hipFileInvalidFileOpenFlag},
    {"DIONotSet", hipFileDIONotSet},
    {"InvalidValue", hipFileInvalidValue},
    {"MemoryAlreadyRegistered", hipFileMemoryAlreadyRegistered},
    {"MemoryNotRegistered", hipFileMemoryNotRegistered},
    {"PermissionDenied", hipFilePermissionDenied},
    {"DriverAlreadyOpen", hipFileDriverAlreadyOpen},
    {"HandleNotRegistered", hipFileHandleNotRegistered},
    {"HandleAlreadyRegistered", hipFileHandleAlreadyRegistered},
    {"DeviceNotFound", hipFileDeviceNotFound},
    {"InternalError", hipFileInternalError},
    {"GetNewFDFailed", hipFileGetNewFDFailed},
    {"DriverSetupError", hipFileDriverSetupError},
    {"IODisabled", hipFileIODisabled},
    {"BatchSubmitFailed", hipFileBatchSubmitFailed},
    {"GPUMemoryPinningFailed", hipFileGPUMemoryPinningFailed},
    {"BatchFull", hipFileBatchFull},
    {"AsyncNotSupported", hipFileAsyncNotSupported},
};

// Looked up at the first error rather than at import: hipfile/__init__.py imports this
// extension before it defines anything, and _error.py needs nothing from here.
py::object error_type() {
  static py::object* type = nullptr;
  if (!type) type = new py::object(py::module_::import("hipfile._error").attr("Error"));  // lives until exit
  return *type;
}

}  // namespace

void raise_error(const Error& e, const std::string& context, const std::string& filename) {
  // hipfile++ errors say what failed where they know it; the binding's own context is for
  // the rest (an allocation, a copy, a registration).
  const bool known = e.operation() != Operation::unknown;
  std::string message = known || context.empty() ? e.message() : context + ": " + e.message();
  py::object err_no = e.sys_errno() != 0 ? py::object(py::int_(e.sys_errno())) : py::object(py::none());
  py::object op = e.op() == hipFileSuccess ? py::object(py::none()) : py::object(py::int_(static_cast<int>(e.op())));
  const std::string& path = e.path().empty() ? filename : e.path();
  py::object file = path.empty() ? py::object(py::none()) : py::object(fs_text(path));
  py::object exc = error_type()(fs_text(message), err_no, op, static_cast<int>(e.hip()), file);
  PyErr_SetObject(error_type().ptr(), exc.ptr());
  throw py::error_already_set();
}

void raise_hip(hipError_t e, const std::string& context) { raise_error(Error::from_hip(e), context); }

std::string type_name(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

int to_int(py::handle value, const char* what) {
  if (!PyLong_Check(value.ptr())) throw py::type_error("hipfile: " + std::string(what) + " must be an int, not " + type_name(value));
  int overflow = 0;
  const long v = PyLong_AsLongAndOverflow(value.ptr(), &overflow);
  if (overflow != 0 || v < INT_MIN || v > INT_MAX) {
    throw py::value_error("hipfile: " + std::string(what) + " is out of range: " + std::string(py::repr(value)));
  }
  return static_cast<int>(v);
}

DeviceScope::DeviceScope(int device, const std::string& what) {
  if (device < 0) return;  // memory HIP does not know: no device to make current
  int current = 0;
  if (hipError_t e = hipGetDevice(&current); e != hipSuccess) raise_hip(e, "reading the current device to " + what);
  if (device == current) return;
  if (hipError_t e = hipSetDevice(device); e != hipSuccess) {
    raise_hip(e, "selecting device " + std::to_string(device) + " to " + what);
  }
  previous_ = current;
  device_ = device;
}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0) (void)hipSetDevice(previous_);  // raising is for restore()
}

void DeviceScope::restore() {
  if (previous_ < 0) return;
  const int previous = std::exchange(previous_, -1);
  if (hipError_t e = hipSetDevice(previous); e != hipSuccess) {
    raise_hip(e, "selecting device " + std::to_string(previous) + " again after device " + std::to_string(device_));
  }
}

std::size_t to_size(py::handle value, const char* what) {
  if (!PyLong_Check(value.ptr())) {
    throw py::type_error("hipfile: " + std::string(what) + " must be an int, not " + type_name(value));
  }
  const auto v = value.cast<py::int_>();
  if (PyObject_RichCompareBool(v.ptr(), py::int_(0).ptr(), Py_LT) == 1) {
    throw py::value_error("hipfile: " + std::string(what) + " must be >= 0, got " + std::string(py::repr(v)));
  }
  const unsigned long long n = PyLong_AsUnsignedLongLong(v.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    throw py::value_error("hipfile: " + std::string(what) + " is too large: " + std::string(py::repr(v)));
  }
  return static_cast<std::size_t>(n);
}

unsigned to_unsigned(py::handle value, const char* what) {
  const std::size_t v = to_size(value, what);
  if (v > UINT_MAX) throw py::value_error("hipfile: " + std::string(what) + " is too large: " + std::to_string(v));
  return static_cast<unsigned>(v);
}

std::string utf8_text(py::handle value, const std::string& what) {
  if (!PyUnicode_Check(value.ptr())) throw py::type_error("hipfile: " + what + " must be a str, not " + type_name(value));
  Py_ssize_t n = 0;
  if (const char* p = PyUnicode_AsUTF8AndSize(value.ptr(), &n)) return std::string(p, static_cast<std::size_t>(n));
  py::error_already_set codec;  // takes the pending error
  if (!codec.matches(PyExc_UnicodeEncodeError)) throw codec;
  const py::object e = codec.value();
  const std::string reason = py::str(e.attr("reason"));
  const py::object named = py::handle(PyExc_UnicodeEncodeError)(
      e.attr("encoding"), e.attr("object"), e.attr("start"), e.attr("end"), reason + " (hipfile: " + what + ")");
  PyErr_SetObject(PyExc_UnicodeEncodeError, named.ptr());
  throw py::error_already_set();
}

void bind_errors(py::module_& m) {
  py::dict names;
  for (const auto& [name, value] : kOpErrors) names[name] = static_cast<int>(value);
  m.attr("_op_errors") = names;
  m.def("op_error_string", [](int op) { return std::string(hipFileGetOpErrorString(static_cast<hipFileOpError_t>(op))); },
        py::arg("op_error"), "The C library's text for a hipFile op error number.");
  m.def("hip_error_name", [](int e) -> py::object {
    if (const char* name = detail::hip_error_name(static_cast<hipError_t>(e))) return py::str(name);
    return py::none();
  }, py::arg("hip_error"), "HIP's name for a hipError_t number (None when unknown).");
}

}  // namespace hipfile::py_binding
