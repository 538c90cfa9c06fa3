// SPDX-License-Identifier: MIT
// _hipfile._Checkpoint: an opened checkpoint (one .safetensors file, an index, or shard files)
// as the Python layer's loaders see it, and the tensor-parallel slice arithmetic of
// <hipfile-safetensors/slice.hpp>. fill() is in fill.cpp, stream() in stream.cpp.
#include <hipfile-safetensors/safetensors.hpp>

#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "binding.hpp"
#include "st_bridge.hpp"

namespace hipfile::py_binding {

namespace {

// A str, bytes or os.PathLike is one path (an index when it ends in ".json"); a list or
// tuple is several shard files (or one index).
std::vector<std::string> checkpoint_paths(py::handle source) {
  std::vector<std::string> paths;
  if (py::isinstance<py::list>(source) || py::isinstance<py::tuple>(source)) {
    for (auto p : source) paths.push_back(fs_path(p));
    if (paths.empty()) throw py::value_error("hipfile: a checkpoint needs at least one file, got an empty list");
  } else {
    paths.push_back(fs_path(source));
  }
  return paths;
}

std::unique_ptr<PyCheckpoint> open_checkpoint(py::handle source) {
  const std::vector<std::string> paths = checkpoint_paths(source);
  std::optional<st::Result<st::Checkpoint>> opened;
  {
    py::gil_scoped_release nogil;  // headers are read here: no Python in the way
    opened.emplace(st::Checkpoint::open(paths));  // one path may be an index: open() tells
  }
  if (!*opened) raise_st(opened->error());
  auto out = std::make_unique<PyCheckpoint>();
  out->checkpoint = std::move(**opened);
  return out;
}

// [(name, dtype, shape, shard index, file offset, nbytes)] in checkpoint order.
py::list describe(const PyCheckpoint& self) {
  py::list out;
  for (const auto& t : self.checkpoint.tensors()) {
    out.append(py::make_tuple(t.name, std::string(st::dtype_name(t.dtype)), shape_tuple(t.shape), t.shard,
                              t.file_offset, t.bytes()));
  }
  return out;
}

py::dict metadata(const PyCheckpoint& self) {
  py::dict out;
  for (const auto& [k, v] : self.checkpoint.metadata()) out[py::str(k)] = py::str(v);
  return out;
}

py::list shard_paths(const PyCheckpoint& self) {
  py::list out;
  for (const auto& s : self.checkpoint.shards()) out.append(fs_text(s.path));
  return out;
}

st::Parallel parse_layout(const std::string& layout) {
  if (layout == "column") return st::Parallel::column;
  if (layout == "row") return st::Parallel::row;
  if (layout == "vocabulary") return st::Parallel::vocabulary;
  if (layout == "replicated") return st::Parallel::replicated;
  throw py::value_error("hipfile: layout must be 'column', 'row', 'vocabulary' or 'replicated', not '" + layout + "'");
}

// (dim, start, stop) of rank's share; invalid_argument (world_size 0, rank not below it) is a
// CheckpointError as every other code of the library.
py::tuple tensor_parallel_slice(py::handle shape, py::handle layout, py::handle rank, py::handle world_size) {
  auto s = st::tensor_parallel_slice(shape_vector(shape), parse_layout(utf8_text(layout, "layout")),
                                     to_unsigned(rank, "rank"), to_unsigned(world_size, "world_size"));
  if (!s) raise_st(s.error());
  return py::make_tuple(s->dim, s->start, s->stop);
}

}  // namespace

void bind_checkpoint(py::module_& m) {
  py::class_<PyCheckpoint>(m, "_Checkpoint", R"doc(An opened safetensors checkpoint (internal: hipfile's loaders use it).

_Checkpoint(path_or_index_or_list): a .safetensors file, a Hugging Face .json index, or a list
of shard files; the headers are read and validated with the GIL released (errors as
load_safetensors raises them).

  tensors() -> [(name, dtype, shape, shard_index, file_offset, nbytes)], checkpoint order
  metadata() -> {str: str}, the __metadata__ of all shards merged
  shard_paths() -> [str]
  fill(destinations, allow_missing, allow_unexpected, parallel_reads, progress, on_filled) -> dict
      destinations: [(name, ptr, nbytes, slice or None, dtype or None, shape or None)], slice
      (dim, start, stop); ptr a raw device or host address the caller keeps alive. The GIL is
      released while reading; progress(done, total) and on_filled(name) (as each destination
      is complete) are called with it held, and the first exception either raises is re-raised
      after the fill. Returns {"missing", "unexpected", "devices", "stats"}.
  stream(device, names, budget, read_ahead_threads) -> _TensorStream
)doc")
      .def(py::init(&open_checkpoint), py::arg("path_or_index_or_list"))
      .def("tensors", &describe, "[(name, dtype, shape, shard_index, file_offset, nbytes)] in checkpoint order.")
      .def("metadata", &metadata, "The __metadata__ strings of all shards (the first shard's where they disagree).")
      .def("shard_paths", &shard_paths, "The shard files, in shard-index order.")
      .def("fill", &checkpoint_fill, py::arg("destinations"), py::arg("allow_missing") = false,
           py::arg("allow_unexpected") = false, py::arg("parallel_reads") = 4, py::arg("progress") = py::none(),
           py::arg("on_filled") = py::none(),
           "Reads tensors (or slices) into caller-owned memory; see the class docstring.")
      .def("stream", &checkpoint_stream, py::arg("device") = -1, py::arg("names") = py::none(),
           py::arg("budget") = 0, py::arg("read_ahead_threads") = 2,
           "A _TensorStream of the tensors in file order; it keeps this checkpoint alive.");
  m.def("_tensor_parallel_slice", &tensor_parallel_slice, py::arg("shape"), py::arg("layout"), py::arg("rank"),
        py::arg("world_size"),
        "(dim, start, stop) that rank holds of a tensor of shape under layout 'column', 'row', 'vocabulary' "
        "or 'replicated'.");
}

}  // namespace hipfile::py_binding
