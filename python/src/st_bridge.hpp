// SPDX-License-Identifier: MIT
// What the safetensors files of the _hipfile extension share (safetensors.cpp, checkpoint.cpp,
// fill.cpp, stream.cpp): the bridge from st::Error to hipfile.CheckpointError / hipfile.Error,
// the stats dict of a load, and the wrapped Checkpoint that fill() and stream() work on.
#pragma once

#include <hipfile-safetensors/checkpoint.hpp>
#include <hipfile-safetensors/error.hpp>
#include <hipfile-safetensors/loaded.hpp>

#include <string>
#include <vector>

#include "binding.hpp"

namespace hipfile::py_binding {

namespace st = hipfile::safetensors;

/// Raises hipfile.Error for an I/O or HIP failure (the cause's errno and op error), else
/// hipfile.MissingTensorError (no_such_tensor) or hipfile.CheckpointError with the code's name.
[[noreturn]] void raise_st(const st::Error& e);

/// {"open", "plan", "allocate", "register", "read", "finish": seconds, "total", "bytes_read",
/// "reads", "library": phase_dict, "paths": {path: bytes the library read}}: what
/// last_load_stats() and fill() report.
py::dict load_stats(const st::LoadStats& s, double open_seconds);

/// A Python iterable of str as names (TypeError naming the first that is not a str).
std::vector<std::string> tensor_names(py::handle names);

/// A shape as a tuple of ints.
py::tuple shape_tuple(const std::vector<std::uint64_t>& shape);

/// A Python iterable of non-negative ints as a shape (TypeError / ValueError otherwise).
std::vector<std::uint64_t> shape_vector(py::handle shape);

/// _hipfile._Checkpoint: an opened st::Checkpoint (held by pointer: it is move-only, and the
/// streams made from it keep the Python object, so its address, alive).
struct PyCheckpoint {
  st::Checkpoint checkpoint;
};

/// _Checkpoint.fill(destinations, allow_missing, allow_unexpected, parallel_reads, progress, on_filled).
py::dict checkpoint_fill(const PyCheckpoint& self, py::list destinations, bool allow_missing, bool allow_unexpected,
                         py::handle parallel_reads, py::object progress, py::object on_filled);

/// _Checkpoint.stream(device, names, budget, read_ahead_threads): a _TensorStream.
py::object checkpoint_stream(py::object self, py::handle device, py::object names, py::handle budget,
                             py::handle read_ahead_threads);

void bind_checkpoint(py::module_& m);
void bind_stream(py::module_& m);
void bind_fill(py::module_& m);

}  // namespace hipfile::py_binding
