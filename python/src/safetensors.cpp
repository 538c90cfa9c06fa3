// SPDX-License-Identifier: MIT
// The binding of <hipfile-safetensors/safetensors.hpp>: _load_safetensors hands the loaded allocations
// over to DeviceBuffer objects (so Python, and through DLPack PyTorch, owns and frees them)
// and describes the tensors in them; _save_safetensors writes tensors from any buffers.
// hipfile/_safetensors.py builds the public functions on these. It also defines the helpers
// st_bridge.hpp shares with the bindings of Checkpoint, fill() and TensorStream.
#include <hipfile-safetensors/safetensors.hpp>

#include <pybind11/stl.h>

#include <chrono>
#include <memory>

#include "binding.hpp"
#include "device_buffer.hpp"
#include "st_bridge.hpp"

namespace hipfile::py_binding {

[[noreturn]] void raise_st(const st::Error& e) {
  const std::string message = e.message();
  if (e.has_cause()) {
    // An I/O or HIP failure: hipfile.Error with the cause's errno / op error, the whole text.
    const Error& c = e.cause();
    py::object err_no = c.sys_errno() != 0 ? py::object(py::int_(c.sys_errno())) : py::object(py::none());
    py::object op = c.op() == hipFileSuccess ? py::object(py::none()) : py::object(py::int_(static_cast<int>(c.op())));
    py::object type = py::module_::import("hipfile._error").attr("Error");
    py::object file = e.file().empty() ? py::object(py::none()) : py::object(fs_text(e.file()));
    py::object exc = type(fs_text(message), err_no, op, static_cast<int>(c.hip()), file);
    PyErr_SetObject(type.ptr(), exc.ptr());
    throw py::error_already_set();
  }
  const char* cls = e.code() == st::Errc::no_such_tensor ? "MissingTensorError" : "CheckpointError";
  py::object type = py::module_::import("hipfile._error").attr(cls);
  py::object exc = type(fs_text(message), std::string(st::errc_name(e.code())), fs_text(e.file()), fs_text(e.tensor()));
  PyErr_SetObject(type.ptr(), exc.ptr());
  throw py::error_already_set();
}

std::vector<std::string> tensor_names(py::handle names) {
  std::vector<std::string> out;
  for (auto n : names) {
    if (!PyUnicode_Check(n.ptr())) throw py::type_error("hipfile: names must be str, not " + type_name(n));
    out.push_back(utf8_text(n, "a name in names"));
  }
  return out;
}

// Where a load's time went: {"open", "plan", "allocate", "register", "read", "finish": seconds,
// "total": their sum as measured, "bytes_read", "reads", "library": phase_dict of the load}.
py::dict load_stats(const st::LoadStats& s, double open_seconds) {
  py::dict d;
  d["open"] = open_seconds;
  d["plan"] = s.plan_seconds;
  d["allocate"] = s.allocate_seconds;
  d["register"] = s.register_seconds;
  d["read"] = s.read_seconds;
  d["finish"] = s.finish_seconds;
  d["total"] = open_seconds + s.total_seconds;
  d["bytes_read"] = s.bytes_read;
  d["reads"] = s.reads;
  d["library"] = phase_dict(s.library_phases);
  // Where the bytes went, by the library's statistics paths (hipfile.stats()'s names).
  py::dict paths;
  for (const auto& [name, path] : kStatsPaths) paths[name] = s.path_bytes[static_cast<std::size_t>(path)];
  d["paths"] = paths;
  return d;
}

std::vector<std::uint64_t> shape_vector(py::handle shape) {
  std::vector<std::uint64_t> out;
  for (auto d : shape) out.push_back(to_size(d, "a shape dimension"));
  return out;
}

py::tuple shape_tuple(const std::vector<std::uint64_t>& shape) {
  py::tuple out(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) out[i] = py::int_(shape[i]);
  return out;
}

namespace {

// Each allocation owned by a DeviceBuffer object; until one is, @p memory frees it when
// something below throws (a failed Python allocation).
py::list wrap_allocations(std::vector<DeviceBuffer>& memory, const std::vector<st::Allocation>& allocations) {
  py::list buffers;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    auto wrapped = std::make_unique<PyDeviceBuffer>(std::move(memory[i]), allocations[i].bytes, allocations[i].device);
    buffers.append(py::cast(std::move(wrapped)));
  }
  return buffers;
}

// (allocations: [DeviceBuffer], tensors: [(name, dtype, shape, allocation or None, offset, nbytes)],
//  stats: load_stats)
py::tuple load(py::handle path, py::handle device_index, py::object names) {
  const int device = to_int(device_index, "device");
  const std::string p = fs_path(path);
  st::LoadOptions options;
  options.device = device;
  if (!names.is_none()) {
    options.names = tensor_names(names);
    if (options.names.empty()) return py::make_tuple(py::list(), py::list(), load_stats({}, 0));  // nothing asked for
  }
  std::optional<st::Result<st::LoadedCheckpoint>> loaded;
  double open_seconds = 0;
  {
    py::gil_scoped_release nogil;
    const auto began = std::chrono::steady_clock::now();
    auto c = st::Checkpoint::open(p);  // an index where p ends in ".json"
    open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (!c) {
      loaded.emplace(hipfile::unexpected(c.error()));
    } else {
      loaded.emplace(st::load(*c, options));
    }
  }
  if (!*loaded) raise_st(loaded->error());
  st::LoadedCheckpoint& ckpt = **loaded;
  const std::vector<st::LoadedTensor> tensors = ckpt.tensors();
  // The room first, while the checkpoint still owns the memory; then nothing between release()
  // and the adoption can throw.
  std::vector<DeviceBuffer> memory;
  memory.reserve(ckpt.allocations().size());
  const std::vector<st::Allocation> allocations = ckpt.release();
  for (const auto& a : allocations) memory.push_back(DeviceBuffer::adopt(a.data, a.bytes, a.device));
  py::list buffers = wrap_allocations(memory, allocations);
  py::list described;
  for (const auto& t : tensors) {
    py::tuple shape = shape_tuple(t.shape);
    py::object alloc = py::none();
    std::size_t offset = 0;
    if (t.bytes != 0) {
      alloc = py::int_(t.allocation);
      offset = static_cast<std::size_t>(static_cast<const std::byte*>(t.data) -
                                        static_cast<const std::byte*>(allocations[t.allocation].data));
    }
    described.append(py::make_tuple(t.name, std::string(t.dtype_name()), shape, alloc, offset, t.bytes));
  }
  return py::make_tuple(buffers, described, load_stats(ckpt.stats(), open_seconds));
}

// metadata: {str: str}, each a str that UTF-8 can hold.
std::map<std::string, std::string> metadata_map(py::dict metadata) {
  std::map<std::string, std::string> out;
  for (auto [k, v] : metadata) out[utf8_text(k, "a metadata key")] = utf8_text(v, "a metadata value");
  return out;
}

// tensors: [(name, dtype, shape, buffer)]; the buffers stay resolved (and alive) for the write.
void save(py::handle path, py::list tensors, py::dict metadata) {
  const std::string p = fs_path(path);
  std::vector<Buffer> held;
  std::vector<st::TensorData> data;
  for (auto item : tensors) {
    auto t = item.cast<py::tuple>();
    const auto name = utf8_text(t[0], "a tensor name");
    const auto dtype_name = utf8_text(t[1], "a dtype");
    const auto dtype = st::parse_dtype(dtype_name);
    if (!dtype) raise_st(st::Error(st::Errc::unknown_dtype, p, name, "unknown dtype '" + dtype_name + "'"));
    std::vector<std::uint64_t> shape = shape_vector(t[2]);
    held.push_back(resolve_buffer(t[3], Access::read_from));
    const Buffer& b = held.back();
    data.push_back(st::TensorData{name, *dtype, std::move(shape),
                                  {static_cast<const std::byte*>(b.ptr), b.nbytes}});
  }
  st::WriteOptions options;
  options.metadata = metadata_map(metadata);
  st::Result<void> r;
  {
    py::gil_scoped_release nogil;
    r = st::write(p, data, options);
  }
  if (!r) raise_st(r.error());
}

}  // namespace

void bind_safetensors(py::module_& m) {
  m.def("_load_safetensors", &load, py::arg("path"), py::arg("device"), py::arg("names") = py::none());
  m.def("_save_safetensors", &save, py::arg("path"), py::arg("tensors"), py::arg("metadata"));
  bind_checkpoint(m);
  bind_stream(m);
  bind_fill(m);
}

}  // namespace hipfile::py_binding
