// SPDX-License-Identifier: MIT
// hipfile.register(buf): hipFileBufRegister of a buffer's whole range for as long as the
// returned object (a context manager) is active. It holds the buffer's exporter, so the memory
// cannot be freed while registered.
#include <hipfile++/registration.hpp>

#include <cstdio>

#include "binding.hpp"

namespace hipfile::py_binding {

namespace {

class PyRegistration {
 public:
  PyRegistration(py::handle buf, int flags) : buffer_(resolve_buffer(buf, Access::read_from)) {
    Result<Registration> r;
    {
      py::gil_scoped_release nogil;
      r = Registration::create(std::span<const std::byte>(static_cast<const std::byte*>(buffer_.ptr), buffer_.nbytes), flags);
    }
    if (!r) raise_error(r.error(), "register " + std::to_string(buffer_.nbytes) + " bytes at " + address());
    registration_ = std::move(*r);
  }
  PyRegistration(const PyRegistration&) = delete;
  PyRegistration& operator=(const PyRegistration&) = delete;
  ~PyRegistration() {
    py::gil_scoped_release nogil;  // deregistering waits for I/O in flight on the range
    registration_.reset();
  }

  /// Deregisters now (waiting for I/O in flight); a second call does nothing.
  void deregister() {
    if (!registration_) return;
    {
      py::gil_scoped_release nogil;
      registration_.reset();
    }
    buffer_.owner = py::none();
  }

  [[nodiscard]] bool active() const noexcept { return static_cast<bool>(registration_); }
  [[nodiscard]] std::size_t nbytes() const noexcept { return buffer_.nbytes; }
  [[nodiscard]] std::string address() const {
    char text[32];
    std::snprintf(text, sizeof text, "%p", buffer_.ptr);
    return text;
  }

 private:
  Buffer buffer_;
  Registration registration_;
};

}  // namespace

void bind_registration(py::module_& m) {
  py::class_<PyRegistration>(m, "Registration", R"(A registered buffer (hipFileBufRegister); see hipfile.register.)")
      .def("deregister", &PyRegistration::deregister, "Deregisters now, waiting for I/O in flight on the buffer.")
      .def_property_readonly("active", &PyRegistration::active, "True until the buffer is deregistered.")
      .def_property_readonly("nbytes", &PyRegistration::nbytes, "The size of the registered range in bytes.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyRegistration& r, py::args) { r.deregister(); return false; })
      .def("__repr__", [](const PyRegistration& r) {
        return "<hipfile.Registration " + std::to_string(r.nbytes()) + " bytes at " + r.address() +
               (r.active() ? ">" : " deregistered>");
      });
  m.def("register", [](py::handle buf, py::handle flags) { return new PyRegistration(buf, to_int(flags, "flags")); },
        py::arg("buf"), py::arg("flags") = 0, py::return_value_policy::take_ownership,
        R"(Registers the whole of buf with hipFile (hipFileBufRegister) and returns a
Registration, a context manager that deregisters on exit. I/O into a
registered buffer (any offset inside it) uses the registration. Registering
an overlapping range twice raises hipfile.Error (MemoryAlreadyRegistered).)");
}

}  // namespace hipfile::py_binding
