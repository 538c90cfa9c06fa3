// SPDX-License-Identifier: MIT
// hipfile.Future: one read or write in flight, started by File.pread/pwrite, over hipfile++'s
// File::read_async/write_async (a Pending: a one-entry C batch run by the library's executor,
// so there is no thread per call and many can be in flight from one Python thread).
//
// The Future holds the buffer's exporter and the File object until the operation has been
// reaped, so neither can disappear under the I/O. Dropping an unfinished Future waits for a
// running operation and cancels one that has not started (Pending's destructor).
#include <hipfile++/pending.hpp>

#include <memory>
#include <mutex>
#include <optional>

#include "file.hpp"

namespace hipfile::py_binding {

namespace {

class PyFuture {
 public:
  PyFuture(py::object file, py::object keep, std::size_t size, std::int64_t offset, std::string context,
           Pending<std::size_t> pending)
      : file_(std::move(file)),
        keep_(std::move(keep)),
        size_(size),
        offset_(offset),
        context_(std::move(context)),
        pending_(std::move(pending)) {}
  PyFuture(const PyFuture&) = delete;
  PyFuture& operator=(const PyFuture&) = delete;

  ~PyFuture() {
    py::gil_scoped_release nogil;  // Pending's destructor may wait for the operation
    pending_.reset();
  }

  /// Waits (GIL released) and returns the count, or raises hipfile.Error.
  std::size_t get() {
    {
      py::gil_scoped_release nogil;
      std::lock_guard lock(mutex_);
      if (!result_) result_ = pending_.get();
      pending_.reset();
    }
    release_keep();
    if (!*result_) raise_error(result_->error(), context_);
    return **result_;
  }

  /// True once the operation has finished (successfully or not); never blocks.
  bool done() {
    bool ready = false;
    {
      py::gil_scoped_release nogil;
      std::lock_guard lock(mutex_);
      ready = result_.has_value() || pending_.is_ready();
    }
    return ready;
  }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::int64_t offset() const noexcept { return offset_; }
  [[nodiscard]] const std::string& context() const noexcept { return context_; }

 private:
  // The buffer may go once the operation is reaped; dropping it needs the GIL.
  void release_keep() {
    keep_ = py::none();
    file_ = py::none();
  }

  py::object file_;
  py::object keep_;
  std::size_t size_ = 0;
  std::int64_t offset_ = 0;
  std::string context_;
  std::mutex mutex_;
  Pending<std::size_t> pending_;
  std::optional<Result<std::size_t>> result_;
};

}  // namespace

py::object start_io(py::object file, IoRange io, Access access) {
  const auto& f = file.cast<const PyFile&>();
  std::string context = f.context(access, io.size, io.file_offset);
  auto* bytes = static_cast<std::byte*>(io.ptr);
  // Submitted under the File's lock: close() on another thread cannot run halfway through it,
  // and once submitted, close() waits for the operation (deregistering waits for the handle's I/O).
  Pending<std::size_t> pending = f.with_file([&](const File& handle) {
    return access == Access::store_into ? handle.read_async(std::span<std::byte>(bytes, io.size), io.file_offset)
                                        : handle.write_async(std::span<const std::byte>(bytes, io.size), io.file_offset);
  });
  auto future = std::make_unique<PyFuture>(std::move(file), std::move(io.buffer.owner), io.size, io.file_offset,
                                           std::move(context), std::move(pending));
  return py::cast(std::move(future));
}

void bind_future(py::module_& m) {
  py::class_<PyFuture>(m, "Future", R"(A read or write in flight (File.pread / File.pwrite).

get() waits and returns the byte count (raising hipfile.Error on failure);
done() tells without waiting. The buffer and the File stay alive until the
operation has been collected by get(). Dropping an unfinished Future waits for
it if it is running and cancels it if it has not started.)")
      .def("get", &PyFuture::get, "Waits for the operation (GIL released); returns the count or raises hipfile.Error.")
      .def("done", &PyFuture::done, "True once the operation has finished; never blocks.")
      .def_property_readonly("size", &PyFuture::size, "The requested byte count.")
      .def_property_readonly("file_offset", &PyFuture::offset, "The file offset the operation starts at.")
      .def("__repr__", [](const PyFuture& f) { return "<hipfile.Future " + f.context() + ">"; });
}

}  // namespace hipfile::py_binding
