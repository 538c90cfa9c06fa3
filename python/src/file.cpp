// SPDX-License-Identifier: MIT
// hipfile.File: open by path and mode, read/write with the GIL released, size, fileno, close,
// and the context-manager protocol.
#include "file.hpp"

#include <fcntl.h>

#include <limits>
#include <span>

namespace hipfile::py_binding {

namespace {

int open_flags(const std::string& mode) {
  std::string m;
  for (char c : mode) {
    if (c != 'b') m += c;
  }
  if (m == "r") return O_RDONLY;
  if (m == "r+") return O_RDWR;
  if (m == "w") return O_WRONLY | O_CREAT | O_TRUNC;
  if (m == "w+") return O_RDWR | O_CREAT | O_TRUNC;
  if (m == "x") return O_WRONLY | O_CREAT | O_EXCL;
  if (m == "x+") return O_RDWR | O_CREAT | O_EXCL;
  throw py::value_error("hipfile: invalid mode '" + mode + "' (expected 'r', 'r+', 'w', 'w+', 'x' or 'x+')");
}

DirectIo direct_policy(py::handle direct) {
  if (direct.is_none()) return DirectIo::prefer;
  if (!PyBool_Check(direct.ptr())) throw py::type_error("hipfile: direct must be None, True or False");
  return direct.cast<bool>() ? DirectIo::require : DirectIo::off;
}

std::int64_t to_offset(py::handle value, const char* what) {
  const std::size_t v = to_size(value, what);
  if (v > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
    throw py::value_error(std::string("hipfile: ") + what + " is beyond the largest file offset");
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

PyFile::PyFile(py::handle path, const std::string& mode, py::handle direct) : mode_(mode) {
  py::object fs = py::module_::import("os").attr("fsdecode")(py::module_::import("os").attr("fspath")(path));
  path_ = fs.cast<std::string>();
  const int flags = open_flags(mode);
  const DirectIo policy = direct_policy(direct);
  Result<File> r;
  {
    py::gil_scoped_release nogil;
    r = File::open(path_, flags, 0644, policy);
  }
  if (!r) raise_error(r.error(), "open '" + path_ + "'", path_);
  file_ = std::move(*r);
}

const File& PyFile::file() const {
  if (!file_) throw py::value_error("I/O operation on closed file");
  return file_;
}

void PyFile::close() {
  Result<void> r;
  {
    py::gil_scoped_release nogil;  // deregistering waits for I/O in flight on the handle
    r = file_.close();
  }
  if (!r) raise_error(r.error(), "close '" + path_ + "'", path_);
}

std::string PyFile::context(Access access, std::size_t size, std::int64_t offset) const {
  const bool read = access == Access::store_into;
  return std::string(read ? "read of " : "write of ") + std::to_string(size) + " bytes at offset " +
         std::to_string(offset) + (read ? " from '" : " to '") + path_ + "'";
}

IoRange PyFile::range(py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset,
                      Access access) const {
  (void)file();
  IoRange io;
  io.file_offset = to_offset(file_offset, "file_offset");
  const std::size_t boff = to_size(buf_offset, "buf_offset");
  io.buffer = resolve_buffer(buf, access);
  if (boff > io.buffer.nbytes) {
    throw py::value_error("hipfile: buf_offset " + std::to_string(boff) + " is beyond the buffer's " +
                          std::to_string(io.buffer.nbytes) + " bytes");
  }
  const std::size_t room = io.buffer.nbytes - boff;
  io.size = size.is_none() ? room : to_size(size, "size");
  if (io.size > room) {
    throw py::value_error("hipfile: size " + std::to_string(io.size) + " at buf_offset " + std::to_string(boff) +
                          " runs past the buffer's " + std::to_string(io.buffer.nbytes) + " bytes");
  }
  io.ptr = static_cast<char*>(io.buffer.ptr) + boff;
  return io;
}

namespace {

std::size_t do_read(const PyFile& f, py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset) {
  IoRange io = f.range(buf, size, file_offset, buf_offset, Access::store_into);
  if (io.size == 0) return 0;
  Result<std::size_t> r;
  {
    py::gil_scoped_release nogil;
    r = f.file().read(std::span<std::byte>(static_cast<std::byte*>(io.ptr), io.size), io.file_offset);
  }
  if (!r) raise_error(r.error(), f.context(Access::store_into, io.size, io.file_offset), f.path());
  return *r;
}

std::size_t do_write(const PyFile& f, py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset) {
  IoRange io = f.range(buf, size, file_offset, buf_offset, Access::read_from);
  if (io.size == 0) return 0;
  Result<std::size_t> r;
  {
    py::gil_scoped_release nogil;
    r = f.file().write(std::span<const std::byte>(static_cast<const std::byte*>(io.ptr), io.size), io.file_offset);
  }
  if (!r) raise_error(r.error(), f.context(Access::read_from, io.size, io.file_offset), f.path());
  return *r;
}

}  // namespace

void bind_file(py::module_& m) {
  py::class_<PyFile>(m, "File", R"(A file opened for GPU-direct I/O (open(2) + hipFileHandleRegister).

mode is 'r', 'r+', 'w', 'w+', 'x' or 'x+' ('b' is accepted and ignored).
direct: None uses O_DIRECT where the file system supports it, True requires
it, False never uses it. The library serves page-cached data from the cache
either way. Use as a context manager, or call close().)")
      .def(py::init<py::handle, const std::string&, py::handle>(), py::arg("path"), py::arg("mode") = "r",
           py::arg("direct") = py::none())
      .def("read", &do_read, py::arg("buf"), py::arg("size") = py::none(), py::arg("file_offset") = 0,
           py::arg("buf_offset") = 0,
           "Reads up to size bytes (default: the rest of buf after buf_offset) at file_offset into buf at "
           "buf_offset. Returns the count, short only at the end of the file. The GIL is released.")
      .def("write", &do_write, py::arg("buf"), py::arg("size") = py::none(), py::arg("file_offset") = 0,
           py::arg("buf_offset") = 0,
           "Writes size bytes (default: the rest of buf after buf_offset) from buf at buf_offset to "
           "file_offset. Returns the count. The GIL is released.")
      .def("pread", [](py::object self, py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset) {
        const auto& f = self.cast<const PyFile&>();
        return start_io(self, f.range(buf, size, file_offset, buf_offset, Access::store_into), Access::store_into);
      }, py::arg("buf"), py::arg("size") = py::none(), py::arg("file_offset") = 0, py::arg("buf_offset") = 0,
           "As read(), without waiting: returns a hipfile.Future whose get() gives the count. buf and this "
           "File are kept alive until the read is done.")
      .def("pwrite", [](py::object self, py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset) {
        const auto& f = self.cast<const PyFile&>();
        return start_io(self, f.range(buf, size, file_offset, buf_offset, Access::read_from), Access::read_from);
      }, py::arg("buf"), py::arg("size") = py::none(), py::arg("file_offset") = 0, py::arg("buf_offset") = 0,
           "As write(), without waiting: returns a hipfile.Future whose get() gives the count.")
      .def("size", [](const PyFile& f) {
        auto r = f.file().size();
        if (!r) raise_error(r.error(), "size of '" + f.path() + "'", f.path());
        return *r;
      }, "The file size in bytes.")
      .def("fileno", [](const PyFile& f) { return f.file().fd(); },
           "The file descriptor (owned by this File: do not close it).")
      .def("close", &PyFile::close, "Deregisters the handle (waiting for I/O in flight) and closes the file; "
                                    "closing twice does nothing.")
      .def_property_readonly("closed", &PyFile::closed, "True after close().")
      .def_property_readonly("path", &PyFile::path, "The path the file was opened with.")
      .def_property_readonly("mode", &PyFile::mode, "The mode the file was opened with (\"r\", \"w+\", ...).")
      .def_property_readonly("direct", [](const PyFile& f) { return f.file().direct(); },
                             "Whether the descriptor was opened with O_DIRECT.")
      .def("__enter__", [](py::object self) { (void)self.cast<PyFile&>().file(); return self; })
      .def("__exit__", [](PyFile& f, py::args) { f.close(); return false; })
      .def("__repr__", [](const PyFile& f) {
        return "<hipfile.File '" + f.path() + "' mode='" + f.mode() + "'" + (f.closed() ? " closed>" : ">");
      });
}

}  // namespace hipfile::py_binding
