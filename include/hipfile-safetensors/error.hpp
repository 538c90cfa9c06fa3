// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/error.hpp
 * @brief The errors of the safetensors loader and writer: a code, the file and tensor they
 *        are about, what is wrong, and the hipfile::Error behind an I/O or HIP failure.
 */
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <hipfile++/error.hpp>

#include "export.hpp"

namespace hipfile::safetensors {

/// What went wrong. Codes up to invalid_argument are checkpoint or argument problems found
/// before any device memory is allocated; io_error and device_error carry a cause().
enum class Errc {
  file_too_short,        ///< fewer than the 8 bytes of the header length
  header_too_large,      ///< header length above the format's 100,000,000 bytes
  header_beyond_file,    ///< header length runs past the end of the file
  invalid_utf8,          ///< the header (or an index) is not UTF-8
  invalid_json,          ///< not JSON
  header_not_object,     ///< JSON, but not an object
  invalid_entry,         ///< a tensor entry without a dtype string, shape array or data_offsets pair
  invalid_metadata,      ///< __metadata__ is not an object of strings
  unknown_dtype,         ///< a dtype the format does not have
  invalid_shape,         ///< a dimension that is not a non-negative integer, or an overflowing size
  offsets_out_of_range,  ///< data_offsets past the end of the data section
  offsets_out_of_order,  ///< data_offsets that end before they begin
  offsets_overlap,       ///< two tensors share bytes
  offsets_gap,           ///< bytes of the data section that no tensor covers
  size_mismatch,         ///< shape × dtype size is not the byte range
  duplicate_name,        ///< one tensor name twice (in a header, an index, or two shards)
  invalid_index,         ///< an index that is not {"weight_map": {name: shard}}
  missing_shard,         ///< an index names a shard that cannot be opened
  missing_tensor,        ///< an index names a tensor its shard lacks
  shard_changed,         ///< a shard's size changed between open and load
  no_such_tensor,        ///< a name asked for is not in the checkpoint
  dtype_mismatch,        ///< typed access with a type of another dtype
  invalid_argument,      ///< a bad device, tensor description or option
  io_error,              ///< a system or hipFile call failed (cause())
  device_error,          ///< a HIP runtime call (allocation, copy) failed (cause())
  shape_mismatch,        ///< a destination whose shape or size is not the tensor's (or its slice's)
  unexpected_tensor,     ///< a tensor of the checkpoint that no destination takes
  invalid_slice,         ///< a slice outside its tensor's shape, or of a dtype packed below a byte
};

/// "invalid_json", ...: the code's name, for bindings and --json output.
[[nodiscard]] constexpr std::string_view errc_name(Errc c) noexcept {
  constexpr std::string_view names[] = {
      "file_too_short", "header_too_large", "header_beyond_file", "invalid_utf8", "invalid_json",
      "header_not_object", "invalid_entry", "invalid_metadata", "unknown_dtype", "invalid_shape",
      "offsets_out_of_range", "offsets_out_of_order", "offsets_overlap", "offsets_gap", "size_mismatch",
      "duplicate_name", "invalid_index", "missing_shard", "missing_tensor", "shard_changed",
      "no_such_tensor", "dtype_mismatch", "invalid_argument", "io_error", "device_error", "shape_mismatch",
      "unexpected_tensor", "invalid_slice"};
  return names[static_cast<int>(c)];
}

/**
 * @brief One failure: message() reads "FILE: tensor 'NAME': WHAT[: CAUSE]", leaving out the
 *        parts that do not apply (no file for a writer argument, no tensor for a header that
 *        is not JSON). The file and tensor are shown escaped and bounded (they come from
 *        files); file() and tensor() return them as they are.
 */
class HIPFILE_ST_API Error {
 public:
  Error() = default;
  Error(Errc code, std::string file, std::string tensor, std::string what) noexcept
      : code_(code), file_(std::move(file)), tensor_(std::move(tensor)), what_(std::move(what)) {}
  /// An I/O or HIP failure with the hipfile::Error behind it.
  Error(Errc code, std::string file, std::string tensor, std::string what, hipfile::Error cause) noexcept
      : Error(code, std::move(file), std::move(tensor), std::move(what)) {
    cause_ = cause;
    has_cause_ = true;
  }

  [[nodiscard]] Errc code() const noexcept { return code_; }
  /// The checkpoint file (shard or index) the error is about; empty when none.
  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  /// The tensor the error is about; empty when the error concerns the whole file.
  [[nodiscard]] const std::string& tensor() const noexcept { return tensor_; }
  /// What is wrong, without file and tensor.
  [[nodiscard]] const std::string& what() const noexcept { return what_; }
  /// The failed call's error (io_error, device_error).
  [[nodiscard]] bool has_cause() const noexcept { return has_cause_; }
  [[nodiscard]] const hipfile::Error& cause() const noexcept { return cause_; }

  [[nodiscard]] std::string message() const;

 private:
  static constexpr std::size_t kMessagePathBytes = 4096;  // PATH_MAX: a path that opened shows whole

  Errc code_ = Errc::invalid_argument;
  std::string file_, tensor_, what_;
  hipfile::Error cause_;
  bool has_cause_ = false;
};

/// The return type of every fallible call of the safetensors layer.
template <class T>
using Result = hipfile::expected<T, Error>;

}  // namespace hipfile::safetensors
