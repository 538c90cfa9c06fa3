// SPDX-License-Identifier: MIT
// hipfile.Future: one read or write in flight, started by File.pread/pwrite.
//
// Built on the public C API's batch I/O (one single-entry batch per operation): the library's
// executor runs it, so there is no thread per call and many can be in flight from one Python
// thread. The Future holds the buffer's exporter and the File object until the operation has
// been reaped, so neither can disappear under the I/O. Dropping an unfinished Future waits for
// a running operation and cancels one that has not started (hipFileBatchIODestroy).
#include <hipfile/hipfile.h>

#include <cerrno>
#include <mutex>
#include <optional>

#include "file.hpp"

namespace hipfile::py_binding {

namespace {

Result<std::size_t> decode(const hipFileIOEvents_t& ev) {
  const auto ret = static_cast<ssize_t>(ev.ret);
  if (ev.status == hipFileComplete && ret >= 0) return static_cast<std::size_t>(ret);
  if (ev.status == hipFileCanceled) return std::unexpected(Error::from_errno(ECANCELED));
  if (ret < 0 && ret > -HIPFILE_BASE_ERR) return std::unexpected(Error::from_errno(static_cast<int>(-ret)));
  if (ret < 0) {
    const auto op = static_cast<hipFileOpError_t>(-ret);
    return std::unexpected(op == hipFileHipDriverError ? Error(op, hipErrorUnknown) : Error(op));
  }
  return std::unexpected(Error::from_op(hipFileIOMaxError));  // a failed status without an error word
}

class PyFuture {
 public:
  PyFuture(py::object file, IoRange io, Access access)
      : file_(std::move(file)), keep_(io.buffer.owner), access_(access), size_(io.size), offset_(io.file_offset) {
    const auto& f = file_.cast<const PyFile&>();
    context_ = f.context(access, io.size, io.file_offset);
    path_ = f.path();
    if (io.size == 0) {  // the batch API has nothing to do for an empty range
      result_ = std::size_t{0};
      release_keep();
      return;
    }
    hipFileIOParams_t p{};
    p.mode = hipFileBatch;
    p.u.batch.devPtr_base = io.ptr;
    p.u.batch.file_offset = io.file_offset;
    p.u.batch.devPtr_offset = 0;
    p.u.batch.size = io.size;
    p.fh = f.file().handle();
    p.opcode = access == Access::store_into ? hipFileBatchRead : hipFileBatchWrite;
    if (auto r = check(hipFileBatchIOSetUp(&batch_, 1)); !r) raise_error(r.error(), context_, path_);
    if (auto r = check(hipFileBatchIOSubmit(batch_, 1, &p, 0)); !r) {
      hipFileBatchIODestroy(batch_);
      batch_ = nullptr;
      raise_error(r.error(), context_, path_);
    }
  }
  PyFuture(const PyFuture&) = delete;
  PyFuture& operator=(const PyFuture&) = delete;

  ~PyFuture() {
    if (batch_) {
      py::gil_scoped_release nogil;
      hipFileBatchIODestroy(batch_);
    }
  }

  /// Waits (GIL released) and returns the count, or raises hipfile.Error.
  std::size_t get() {
    {
      py::gil_scoped_release nogil;
      std::lock_guard lock(mutex_);
      reap(nullptr);
    }
    release_keep();
    if (!*result_) raise_error(result_->error(), context_, path_);
    return **result_;
  }

  /// True once the operation has finished (successfully or not); never blocks.
  bool done() {
    {
      py::gil_scoped_release nogil;
      std::lock_guard lock(mutex_);
      timespec zero{0, 0};
      reap(&zero);
    }
    if (result_) release_keep();
    return result_.has_value();
  }

 private:
  // Collects the completion event (waiting up to *timeout, forever for nullptr) and destroys
  // the batch once it has one. Called with mutex_ held and without the GIL.
  void reap(timespec* timeout) {
    if (result_) return;
    hipFileIOEvents_t ev{};
    unsigned nr = 1;
    hipFileError_t s = hipFileBatchIOGetStatus(batch_, timeout ? 0 : 1, &nr, &ev, timeout);
    if (s.err != hipFileSuccess) {
      result_ = std::unexpected(Error::from_status(s));
    } else if (nr == 1) {
      result_ = decode(ev);
    } else {
      return;
    }
    hipFileBatchIODestroy(std::exchange(batch_, nullptr));
  }

  // The buffer may go once the operation is reaped; dropping it needs the GIL.
  void release_keep() {
    keep_ = py::none();
    file_ = py::none();
  }

 public:
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::int64_t offset() const noexcept { return offset_; }
  [[nodiscard]] bool is_read() const noexcept { return access_ == Access::store_into; }
  [[nodiscard]] const std::string& context() const noexcept { return context_; }

 private:
  py::object file_;
  py::object keep_;
  Access access_;
  std::size_t size_ = 0;
  std::int64_t offset_ = 0;
  std::string context_;
  std::string path_;
  hipFileBatchHandle_t batch_ = nullptr;
  std::mutex mutex_;
  std::optional<Result<std::size_t>> result_;
};

}  // namespace

py::object start_io(py::object file, IoRange io, Access access) {
  return py::cast(new PyFuture(std::move(file), std::move(io), access), py::return_value_policy::take_ownership);
}

void bind_future(py::module_& m) {
  py::class_<PyFuture>(m, "Future", R"(A read or write in flight (File.pread / File.pwrite).

get() waits and returns the byte count (raising hipfile.Error on failure);
done() tells without waiting. The buffer and the File stay alive until the
operation has finished. Dropping an unfinished Future waits for it if it is
running and cancels it if it has not started.)")
      .def("get", &PyFuture::get, "Waits for the operation (GIL released); returns the count or raises hipfile.Error.")
      .def("done", &PyFuture::done, "True once the operation has finished; never blocks.")
      .def_property_readonly("size", &PyFuture::size, "The requested byte count.")
      .def_property_readonly("file_offset", &PyFuture::offset)
      .def("__repr__", [](const PyFuture& f) { return "<hipfile.Future " + f.context() + ">"; });
}

}  // namespace hipfile::py_binding
