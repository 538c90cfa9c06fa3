// SPDX-License-Identifier: MIT
// _Checkpoint.fill: st::fill() into memory the Python side owns, given as raw addresses (torch
// CPU tensors and bf16 tensors have no buffer protocol; hipfile/_destination.py takes the
// addresses and keeps the objects alive for the call). Also _buffer_address, which resolves a
// DLPack / __cuda_array_interface__ / buffer-protocol object to the address fill() needs.
#include <hipfile-safetensors/safetensors.hpp>

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding.hpp"
#include "st_bridge.hpp"

namespace hipfile::py_binding {

namespace {

std::optional<st::Slice> parse_slice(py::handle s) {
  if (s.is_none()) return std::nullopt;
  auto t = s.cast<py::tuple>();
  if (t.size() != 3) throw py::value_error("hipfile: a slice is (dim, start, stop), got " + std::to_string(t.size()) +
                                           " values");
  return st::Slice{to_size(t[0], "a slice's dim"), to_size(t[1], "a slice's start"), to_size(t[2], "a slice's stop")};
}

std::optional<std::vector<std::uint64_t>> parse_shape(py::handle s) {
  if (s.is_none()) return std::nullopt;
  return shape_vector(s);
}

// (name, ptr, nbytes, slice or None, dtype or None, shape or None)
st::Destination parse_destination(py::handle item) {
  auto t = item.cast<py::tuple>();
  if (t.size() != 6) throw py::value_error("hipfile: a destination is (name, ptr, nbytes, slice, dtype, shape)");
  if (!PyUnicode_Check(t[0].ptr())) throw py::type_error("hipfile: a destination's name must be str, not " + type_name(t[0]));
  st::Destination d;
  d.name = utf8_text(t[0], "a destination's name");
  d.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(t[1].cast<std::uint64_t>()));
  d.bytes = to_size(t[2], "a destination's nbytes");
  d.slice = parse_slice(t[3]);
  if (!t[4].is_none()) {
    const auto name = utf8_text(t[4], "a destination's dtype");
    d.dtype = st::parse_dtype(name);
    if (!d.dtype) throw py::value_error("hipfile: unknown dtype '" + name + "'");
  }
  d.shape = parse_shape(t[5]);
  return d;
}

// The Python callbacks of a fill run on the reading threads: each call takes the GIL, and the
// first exception either raises is kept (the fill cannot be stopped from here) to be raised
// when the fill has returned. progress(done, total) as reads complete; on_filled(name) as each
// destination is complete. Use it with the GIL held except while fill() runs.
class CallbackBridge {
 public:
  CallbackBridge(py::object progress, py::object on_filled, const std::vector<st::Destination>& dests)
      : progress_(std::move(progress)), on_filled_(std::move(on_filled)), dests_(dests) {}
  CallbackBridge(const CallbackBridge&) = delete;
  CallbackBridge& operator=(const CallbackBridge&) = delete;

  void install(st::FillOptions& options) {
    if (!progress_.is_none())
      options.progress = [this](std::uint64_t done, std::uint64_t total) { call(progress_, done, total); };
    if (!on_filled_.is_none())
      options.on_filled = [this](std::size_t i) { call(on_filled_, dests_[i].name); };
  }

  /// Raises what a callback raised, if anything.
  void rethrow() {
    if (error_) {
      error_->restore();
      error_.reset();
      throw py::error_already_set();
    }
  }

  ~CallbackBridge() { error_.reset(); }  // destroyed with the GIL held

 private:
  template <class... Args>
  void call(const py::object& callback, const Args&... args) {
    py::gil_scoped_acquire gil;
    if (error_) return;  // one exception is enough: later calls would bury it
    try {
      callback(args...);
    } catch (py::error_already_set& e) {
      error_ = std::make_unique<py::error_already_set>(std::move(e));
    }
  }

  py::object progress_, on_filled_;
  const std::vector<st::Destination>& dests_;
  std::unique_ptr<py::error_already_set> error_;  // a pointer: GCC 12 misreads an optional's payload
};

py::list string_list(const std::vector<std::string>& names) {
  py::list out;
  for (const auto& n : names) out.append(py::str(n));
  return out;
}

// (ptr, nbytes, is_device, owner): where a DLPack / __cuda_array_interface__ / buffer-protocol
// object (or a DeviceBuffer) keeps its bytes, writable and contiguous; owner must be kept alive
// as long as the address is used.
py::tuple buffer_address(py::handle obj) {
  Buffer b = resolve_buffer(obj, Access::store_into);
  return py::make_tuple(reinterpret_cast<std::uintptr_t>(b.ptr), b.nbytes, b.device, b.owner);
}

}  // namespace

py::dict checkpoint_fill(const PyCheckpoint& self, py::list destinations, bool allow_missing, bool allow_unexpected,
                         py::handle parallel_reads, py::object progress, py::object on_filled) {
  std::vector<st::Destination> dests;
  dests.reserve(destinations.size());
  for (auto item : destinations) dests.push_back(parse_destination(item));
  st::FillOptions options;
  options.allow_missing = allow_missing;
  options.allow_unexpected = allow_unexpected;
  options.parallel_reads = to_unsigned(parallel_reads, "parallel_reads");
  CallbackBridge bridge(std::move(progress), std::move(on_filled), dests);
  bridge.install(options);
  std::optional<st::Result<st::FillResult>> result;
  {
    py::gil_scoped_release nogil;
    result.emplace(st::fill(self.checkpoint, dests, options));
  }
  // A failed read says more about the destinations than the callback's exception does.
  if (!*result) raise_st(result->error());
  bridge.rethrow();
  py::dict out;
  out["missing"] = string_list((*result)->missing);
  out["unexpected"] = string_list((*result)->unexpected);
  out["stats"] = load_stats((*result)->stats, 0);
  py::dict devices;  // bytes placed per device; -1: host memory
  for (const auto& [device, bytes] : (*result)->device_bytes) devices[py::int_(device)] = bytes;
  out["devices"] = devices;
  return out;
}

void bind_fill(py::module_& m) {
  m.def("_buffer_address", &buffer_address, py::arg("obj"),
        "(ptr, nbytes, is_device, owner) of a writable contiguous buffer (DLPack, __cuda_array_interface__, "
        "DeviceBuffer, buffer protocol); keep owner alive while ptr is used.");
}

}  // namespace hipfile::py_binding
