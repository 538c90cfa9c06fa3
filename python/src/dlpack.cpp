// SPDX-License-Identifier: MIT
// Exporting device memory as DLPack capsules. A capsule's manager context holds the shape and a
// strong reference to the Python owner; the deleter (called by the consumer, or by the capsule's
// destructor when nobody consumed it) drops that reference under the GIL, so the memory is
// freed when the last consumer lets go of it.
#include <Python.h>

#include <new>
#include <utility>

#include "binding.hpp"

namespace hipfile::py_binding {

namespace {

struct Context {
  std::vector<std::int64_t> shape;
  PyObject* owner = nullptr;  // strong reference
  dlpack::ManagedTensor legacy{};
  dlpack::ManagedTensorVersioned versioned{};
};

void release(Context* ctx) {
  // A consumer may free the tensor from any thread (PyTorch's allocator, a CUDA callback); the
  // reference can only be dropped under the GIL, and not at all once the interpreter is gone.
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(ctx->owner);
    PyGILState_Release(g);
  }
  delete ctx;
}

void delete_legacy(dlpack::ManagedTensor* t) { release(static_cast<Context*>(t->manager_ctx)); }
void delete_versioned(dlpack::ManagedTensorVersioned* t) { release(static_cast<Context*>(t->manager_ctx)); }

// An unconsumed capsule still owns its tensor; a consumed one was renamed "used_..." and the
// consumer owns it.
void capsule_destructor(PyObject* capsule) {
  // Runs at any refcount drop, also while an exception propagates: keep it.
  PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
  PyErr_Fetch(&type, &value, &trace);
  if (PyCapsule_IsValid(capsule, dlpack::kCapsuleName)) {
    auto* t = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
    t->deleter(t);
  } else if (PyCapsule_IsValid(capsule, dlpack::kCapsuleNameVersioned)) {
    auto* t = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleNameVersioned));
    t->deleter(t);
  }
  PyErr_Restore(type, value, trace);
}

}  // namespace

std::int32_t dlpack_device_type() noexcept {
#if defined(HIPFILE_PY_PLATFORM_NVIDIA)
  return dlpack::kCUDA;
#else
  return dlpack::kROCM;  // AMD, and hip-cpu, which stands in for a HIP (ROCm) device
#endif
}

py::capsule export_dlpack(void* data, int device_id, dlpack::DataType dtype, const std::vector<std::int64_t>& shape,
                          py::object owner, bool versioned) {
  auto* ctx = new Context{};
  ctx->shape = shape;
  ctx->owner = owner.release().ptr();
  dlpack::Tensor t{};
  t.data = data;
  t.device = {dlpack_device_type(), device_id};
  t.ndim = static_cast<std::int32_t>(ctx->shape.size());
  t.dtype = dtype;
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  void* pointer = nullptr;
  const char* name = nullptr;
  if (versioned) {
    ctx->versioned = {{1, 0}, ctx, &delete_versioned, 0, t};
    pointer = &ctx->versioned;
    name = dlpack::kCapsuleNameVersioned;
  } else {
    ctx->legacy = {t, ctx, &delete_legacy};
    pointer = &ctx->legacy;
    name = dlpack::kCapsuleName;
  }
  PyObject* capsule = PyCapsule_New(pointer, name, &capsule_destructor);
  if (!capsule) {
    release(ctx);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

namespace {

// (a, b) of two ints, else TypeError naming the __dlpack__ keyword.
std::pair<int, int> int_pair(py::handle value, const char* what, const char* form) {
  const bool ok = py::isinstance<py::tuple>(value) && py::len(value) == 2 &&
                  PyLong_Check(value[py::int_(0)].ptr()) && PyLong_Check(value[py::int_(1)].ptr());
  if (!ok) {
    throw py::type_error(std::string("hipfile: __dlpack__ ") + what + " must be a tuple " + form + ", not " +
                         std::string(py::repr(value)));
  }
  return {to_int(value[py::int_(0)], what), to_int(value[py::int_(1)], what)};
}

}  // namespace

bool dlpack_wants_versioned(py::object max_version, py::object dl_device, py::object copy, int device_id) {
  if (!copy.is_none() && !PyBool_Check(copy.ptr())) {
    throw py::type_error("hipfile: __dlpack__ copy must be None, True or False, not " + type_name(copy));
  }
  if (!copy.is_none() && copy.cast<bool>()) {
    throw py::buffer_error("hipfile: __dlpack__(copy=True) is not supported; the memory is exported without a copy");
  }
  if (!dl_device.is_none()) {
    const auto [type, id] = int_pair(dl_device, "dl_device", "(device_type, device_id)");
    if (type != dlpack_device_type() || id != device_id) {
      throw py::buffer_error("hipfile: __dlpack__(dl_device=" + std::string(py::str(dl_device)) +
                             ") asks for another device than the memory's (" + std::to_string(dlpack_device_type()) +
                             ", " + std::to_string(device_id) + ")");
    }
  }
  if (max_version.is_none()) return false;
  return int_pair(max_version, "max_version", "(major, minor)").first >= 1;
}

}  // namespace hipfile::py_binding
