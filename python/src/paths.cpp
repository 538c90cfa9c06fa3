// SPDX-License-Identifier: MIT
// File names between Python and the OS: a path argument (str, bytes, os.PathLike) becomes the
// bytes open(2) sees, as os.fsencode gives them, so names that are not valid UTF-8 work; bytes
// from the OS become str as os.fsdecode gives them.
#include <cstring>

#include "binding.hpp"

namespace hipfile::py_binding {

std::string fs_path(py::handle path) {
  PyObject* obj = path.ptr();
  if (!PyUnicode_Check(obj) && !PyBytes_Check(obj) && !PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__fspath__")) {
    throw py::type_error("hipfile: path must be str, bytes or os.PathLike, not " + type_name(path));
  }
  auto fspath = py::reinterpret_steal<py::object>(PyOS_FSPath(obj));
  if (!fspath) throw py::error_already_set();
  py::bytes raw = PyBytes_Check(fspath.ptr()) ? py::reinterpret_borrow<py::bytes>(fspath)
                                              : py::reinterpret_steal<py::bytes>(PyUnicode_EncodeFSDefault(fspath.ptr()));
  if (!raw) throw py::error_already_set();
  std::string bytes = raw;
  // The C string open(2) gets would end at the NUL: another file than the one named.
  if (std::memchr(bytes.data(), '\0', bytes.size()) != nullptr) throw py::value_error("embedded null byte");
  return bytes;
}

py::str fs_text(const std::string& bytes) {
  PyObject* text = PyUnicode_DecodeFSDefaultAndSize(bytes.data(), static_cast<Py_ssize_t>(bytes.size()));
  if (!text) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(text);
}

}  // namespace hipfile::py_binding
