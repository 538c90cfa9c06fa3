// SPDX-License-Identifier: MIT
// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), written out from the
// published struct layout: the legacy DLManagedTensor ("dltensor" capsules) and the versioned
// DLManagedTensorVersioned of DLPack 1.0 ("dltensor_versioned"). Only what the binding uses.
#pragma once

#include <cstdint>

namespace hipfile::py_binding::dlpack {

enum DeviceType : std::int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kROCM = 10,
  kROCMHost = 11,
  kCUDAManaged = 13,
};

enum TypeCode : std::uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kBfloat = 4,
  kComplex = 5,
  kBool = 6,
};

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; NULL means compact row-major
  std::uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor*);
};

struct PackVersion {
  std::uint32_t major;
  std::uint32_t minor;
};

inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;

struct ManagedTensorVersioned {
  PackVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned*);
  std::uint64_t flags;
  Tensor dl_tensor;
};

inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kCapsuleNameVersioned = "dltensor_versioned";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kUsedCapsuleNameVersioned = "used_dltensor_versioned";

}  // namespace hipfile::py_binding::dlpack
