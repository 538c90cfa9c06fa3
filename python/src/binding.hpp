// SPDX-License-Identifier: MIT
// What the files of the _hipfile extension share: the resolved view of a Python buffer, the
// error bridge to hipfile.Error, the DLPack exporter, and one bind_* function per file.
#pragma once

#include <hipfile++/error.hpp>
#include <hipfile++/stats.hpp>

#include <pybind11/pybind11.h>

#include <utility>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dlpack.hpp"

namespace hipfile::py_binding {

namespace py = pybind11;

/// Whether the I/O reads from the buffer (write to a file) or stores into it (read from a file).
enum class Access { read_from, store_into };

/**
 * One Python object resolved to contiguous memory. `owner` keeps whatever exported the memory
 * alive (the object itself, a DLPack capsule, a Py_buffer holder) for as long as this value
 * lives; copy it into anything that outlives the call, such as a future.
 */
struct Buffer {
  void* ptr = nullptr;
  std::size_t nbytes = 0;
  bool device = false;  ///< device memory (not CPU-accessible), as opposed to host memory
  int device_id = -1;
  py::object owner;
};

/// Resolves @p obj (DeviceBuffer, __cuda_array_interface__, __dlpack__, buffer protocol).
/// Raises TypeError for an unsupported object, ValueError for non-contiguous or read-only
/// memory used as a destination.
Buffer resolve_buffer(py::handle obj, Access access);

/// Raises hipfile.Error for @p e; @p context names what failed ("read of 4096 bytes at ...").
[[noreturn]] void raise_error(const Error& e, const std::string& context, const std::string& filename = {});

/// Raises hipfile.Error for a failed HIP runtime call.
[[noreturn]] void raise_hip(hipError_t e, const std::string& context);

/// The DLPack device type of this build's device memory (CUDA on platform=nvidia, else ROCm).
std::int32_t dlpack_device_type() noexcept;

/// A DLPack capsule ("dltensor", or "dltensor_versioned" when @p versioned) describing
/// compact row-major memory at @p data. The capsule holds a reference to @p owner until the
/// consumer calls the deleter (or the capsule dies unconsumed).
py::capsule export_dlpack(void* data, int device_id, dlpack::DataType dtype, const std::vector<std::int64_t>& shape,
                          py::object owner, bool versioned);

/// Reads the standard __dlpack__ keywords and checks them against memory on @p device_id;
/// returns whether the caller asked for a versioned capsule.
bool dlpack_wants_versioned(py::object max_version, py::object dl_device, py::object copy, int device_id);

/// A non-negative Python int as size_t, or ValueError naming @p what (TypeError when not an int).
std::size_t to_size(py::handle value, const char* what);

/// A Python int as int, or TypeError / ValueError naming @p what.
int to_int(py::handle value, const char* what);

/// A Python int in [0, UINT_MAX] as unsigned, or TypeError / ValueError naming @p what.
unsigned to_unsigned(py::handle value, const char* what);

/// A str as its UTF-8 bytes: TypeError naming @p what for another type; for a str that UTF-8
/// cannot hold (a lone surrogate, as os.fsdecode makes of bytes that are not UTF-8) the codec's
/// UnicodeEncodeError with @p what added to its reason, where pybind11's cast would raise
/// "Unable to cast ... to C++ type". @p what is our text only: the str may not print.
std::string utf8_text(py::handle value, const std::string& what);

/// The name of @p obj's type ("ndarray", "int").
std::string type_name(py::handle obj);

/// A path argument (str, bytes, os.PathLike) as the bytes the OS sees (os.fsencode): TypeError
/// for another type, ValueError "embedded null byte" for a name a C string would cut short.
std::string fs_path(py::handle path);

/// Bytes from the OS (a file name, a message naming one) as str, the way os.fsdecode does:
/// bytes that are not UTF-8 become lone surrogates instead of failing.
py::str fs_text(const std::string& bytes);

/// hipSetDevice(@p device) when it is not the current one, and back on destruction; a failing
/// switch raises hipfile.Error naming @p what. Use it with the GIL held.
class DeviceScope {
 public:
  DeviceScope(int device, const std::string& what);
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  ~DeviceScope();
  /// Switches back now, raising what the destructor can only drop.
  void restore();

 private:
  int previous_ = -1;
  int device_ = -1;
};

/// The library's statistics paths under the names Python gives them (hipfile.stats()'s keys,
/// a load's "paths").
inline constexpr std::pair<const char*, hipfile::stats::Path> kStatsPaths[] = {
    {"engine", hipfile::stats::Path::engine},
    {"host", hipfile::stats::Path::host},
    {"cufile", hipfile::stats::Path::cufile},
    {"amd", hipfile::stats::Path::amd},
};

/// {name: {"count", "seconds", "first_seconds"}} of the library's setup phases (stats.cpp): all
/// of them (hipfile.stats()) or those during one load (last_load_stats()).
py::dict phase_dict(const hipfile::stats::Phases& phases);

void bind_errors(py::module_& m);
void bind_device_buffer(py::module_& m);
void bind_file(py::module_& m);
void bind_future(py::module_& m);
void bind_registration(py::module_& m);
void bind_stats(py::module_& m);
void bind_safetensors(py::module_& m);

}  // namespace hipfile::py_binding
