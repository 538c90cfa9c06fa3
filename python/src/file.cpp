// SPDX-License-Identifier: MIT
// hipfile.File: open by path and mode, read/write with the GIL released, size, fileno, sync,
// close, and the context-manager protocol.
#include "file.hpp"

#include <fcntl.h>

#include <limits>
#include <mutex>
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

std::string mode_text(py::handle mode) {
  if (!PyUnicode_Check(mode.ptr())) throw py::type_error("hipfile: mode must be a str, not " + type_name(mode));
  return mode.cast<std::string>();
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

PyFile::PyFile(py::handle path, py::handle mode, py::handle direct) : path_(fs_path(path)), mode_(mode_text(mode)) {
  const int flags = open_flags(mode_);
  const DirectIo policy = direct_policy(direct);
  Result<File> r;
  {
    py::gil_scoped_release nogil;
    r = File::open(path_, flags, 0644, policy);
  }
  if (!r) raise_error(r.error(), "open '" + path_ + "'", path_);
  file_ = std::move(*r);
}

void PyFile::throw_closed() { throw py::value_error("I/O operation on closed file"); }

void PyFile::check_open() const {
  if (closed()) throw_closed();
}

void PyFile::close() {
  Result<void> r;
  {
    // Deregistering waits for I/O in flight on the handle; the lock, for this object's calls
    // running on other threads.
    py::gil_scoped_release nogil;
    std::unique_lock lock(mutex_);
    if (file_) {
      closed_.store(true, std::memory_order_release);
      r = file_.close();
    }
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
  check_open();
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
  const std::span<std::byte> dst(static_cast<std::byte*>(io.ptr), io.size);
  Result<std::size_t> r = f.with_file([&](const File& file) { return file.read(dst, io.file_offset); });
  if (!r) raise_error(r.error(), f.context(Access::store_into, io.size, io.file_offset), f.path_bytes());
  return *r;
}

std::size_t do_write(const PyFile& f, py::handle buf, py::handle size, py::handle file_offset, py::handle buf_offset) {
  IoRange io = f.range(buf, size, file_offset, buf_offset, Access::read_from);
  if (io.size == 0) return 0;
  const std::span<const std::byte> src(static_cast<const std::byte*>(io.ptr), io.size);
  Result<std::size_t> r = f.with_file([&](const File& file) { return file.write(src, io.file_offset); });
  if (!r) raise_error(r.error(), f.context(Access::read_from, io.size, io.file_offset), f.path_bytes());
  return *r;
}

std::uint64_t file_size(const PyFile& f) {
  auto r = f.with_file([](const File& file) { return file.size(); });
  if (!r) raise_error(r.error(), "size of '" + f.path_bytes() + "'", f.path_bytes());
  return *r;
}

void file_sync(const PyFile& f) {
  Result<void> r = f.with_file([](const File& file) { return file.sync(); });
  if (!r) raise_error(r.error(), "sync '" + f.path_bytes() + "'", f.path_bytes());
}

py::str file_repr(const PyFile& f) {
  py::str text("<hipfile.File {!r} mode={!r}{}>");
  return text.format(f.path(), f.mode(), f.closed() ? " closed" : "");
}

void bind_io(py::class_<PyFile>& cls) {
  cls.def("read", &do_read, py::arg("buf"), py::arg("size") = py::none(), py::arg("file_offset") = 0,
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
      .def("size", &file_size, "The file size in bytes.")
      .def("sync", &file_sync,
           "fdatasync(2): the data written so far (and the metadata needed to read it back) reaches stable "
           "storage; raises hipfile.Error when that fails. The GIL is released.");
}

}  // namespace

void bind_file(py::module_& m) {
  py::class_<PyFile> cls(m, "File", R"(A file opened for GPU-direct I/O (open(2) + hipFileHandleRegister).

path is a str, bytes or os.PathLike. mode is 'r', 'r+', 'w', 'w+', 'x' or
'x+' ('b' is accepted and ignored). direct: None uses O_DIRECT where the file
system supports it, True requires it, False never uses it. The library serves
page-cached data from the cache either way. Use as a context manager, or call
close(). One File may be used from several threads; close() waits for their
calls in progress.)");
  cls.def(py::init<py::handle, py::handle, py::handle>(), py::arg("path"), py::arg("mode") = "r",
          py::arg("direct") = py::none());
  bind_io(cls);
  cls.def("fileno", [](const PyFile& f) { return f.with_file([](const File& file) { return file.fd(); }); },
          "The file descriptor (owned by this File: do not close it).")
      .def("close", &PyFile::close, "Deregisters the handle (waiting for I/O in flight) and closes the file; "
                                    "closing twice does nothing.")
      .def_property_readonly("closed", &PyFile::closed, "True after close().")
      .def_property_readonly("path", &PyFile::path, "The path the file was opened with (a str, as os.fsdecode gives).")
      .def_property_readonly("mode", &PyFile::mode, "The mode the file was opened with (\"r\", \"w+\", ...).")
      .def_property_readonly("direct", [](const PyFile& f) { return f.with_file([](const File& file) { return file.direct(); }); },
                             "Whether the descriptor was opened with O_DIRECT.")
      .def("__enter__", [](py::object self) { self.cast<const PyFile&>().check_open(); return self; })
      .def("__exit__", [](PyFile& f, py::args) { f.close(); return false; })
      .def("__repr__", &file_repr);
}

}  // namespace hipfile::py_binding
