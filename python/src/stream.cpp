// SPDX-License-Identifier: MIT
// _hipfile._TensorStream: st::TensorStream as a Python iterator. Each tensor's device memory is
// handed to a DeviceBuffer object (as _load_safetensors hands its allocations), so Python owns
// and frees it; hipfile/_stream.py makes torch tensors or hipfile.Tensor of them.
#include <hipfile-safetensors/safetensors.hpp>

#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "binding.hpp"
#include "device_buffer.hpp"
#include "st_bridge.hpp"

namespace hipfile::py_binding {

namespace {

class PyTensorStream {
 public:
  PyTensorStream(py::object checkpoint, st::TensorStream stream)
      : checkpoint_(std::move(checkpoint)), stream_(std::move(stream)) {}

  // Stops the reading (waiting for reads in flight) before the checkpoint it reads may go:
  // the member order destroys stream_ first, and the GIL is not needed by the readers.
  ~PyTensorStream() = default;

  /// (name, dtype, shape, DeviceBuffer or None for a tensor of zero bytes); StopIteration after
  /// the last.
  py::tuple next() {
    std::optional<st::Result<std::optional<st::StreamedTensor>>> got;
    {
      py::gil_scoped_release nogil;
      std::lock_guard<std::mutex> one_at_a_time(mutex_);  // after the release: no lock-order cycle with the GIL
      got.emplace(stream_.next());
    }
    if (!*got) raise_st(got->error());
    if (!**got) throw py::stop_iteration();
    st::StreamedTensor& t = ***got;
    py::object memory = py::none();
    if (t.tensor.bytes != 0) {
      memory = py::cast(std::make_unique<PyDeviceBuffer>(std::move(t.memory), t.tensor.bytes, t.tensor.device));
    }
    return py::make_tuple(t.tensor.name, std::string(t.tensor.dtype_name()), shape_tuple(t.tensor.shape), memory);
  }

  [[nodiscard]] std::size_t size() const noexcept { return stream_.size(); }
  [[nodiscard]] std::uint64_t budget() const noexcept { return stream_.budget(); }
  [[nodiscard]] std::uint64_t peak_held() const noexcept { return stream_.peak_held(); }
  [[nodiscard]] py::dict stats() const { return load_stats(stream_.stats(), 0); }

 private:
  py::object checkpoint_;  // the _Checkpoint whose st::Checkpoint the stream refers to
  st::TensorStream stream_;
  std::mutex mutex_;
};

}  // namespace

py::object checkpoint_stream(py::object self, py::handle device, py::object names, py::handle budget,
                             py::handle read_ahead_threads) {
  const PyCheckpoint& ckpt = self.cast<const PyCheckpoint&>();
  st::StreamOptions options;
  options.device = to_int(device, "device");
  if (!names.is_none()) options.names = tensor_names(names);
  options.budget = to_size(budget, "budget");
  options.read_ahead_threads = to_unsigned(read_ahead_threads, "read_ahead_threads");
  std::optional<st::Result<st::TensorStream>> opened;
  {
    py::gil_scoped_release nogil;
    opened.emplace(st::TensorStream::open(ckpt.checkpoint, options));
  }
  if (!*opened) raise_st(opened->error());
  return py::cast(std::make_unique<PyTensorStream>(self, std::move(**opened)));
}

void bind_stream(py::module_& m) {
  py::class_<PyTensorStream>(m, "_TensorStream", R"doc(A checkpoint's tensors one at a time (internal: _Checkpoint.stream()).

Iterating gives (name, dtype, shape, DeviceBuffer or None) in file order, each as soon as its
bytes are on the device; the DeviceBuffer owns the tensor's memory (None for zero bytes). It
holds a reference to its _Checkpoint.
)doc")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &PyTensorStream::next, "The next (name, dtype, shape, DeviceBuffer or None).")
      .def("__len__", &PyTensorStream::size, "Tensors selected.")
      .def_property_readonly("budget", &PyTensorStream::budget, "The read-ahead budget in force, in bytes.")
      .def_property_readonly("peak_held", &PyTensorStream::peak_held,
                             "The most bytes read ahead and not yet taken, so far.")
      .def("stats", &PyTensorStream::stats, "Bytes and reads so far, as last_load_stats() reports a load.");
}

}  // namespace hipfile::py_binding
