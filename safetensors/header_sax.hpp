// SPDX-License-Identifier: MIT
/**
 * @file header_sax.hpp
 * @brief Internal: the header's schema as a SAX handler (HeaderSax) and the checks of one
 *        tensor entry once its object closes. Not part of the API.
 */
#pragma once

#include <hipfile-safetensors/header.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fail.hpp"
#include "json.hpp"
#include "sax_steps.hpp"

namespace hipfile::safetensors::detail {

/// A tensor entry as its keys arrive, in any order; checked once its object closes.
struct EntryDraft {
  std::optional<Scalar> dtype;
  bool shape_is_array = false;
  std::vector<std::uint64_t> dims;    // up to the first dimension that is no integer
  std::optional<std::size_t> bad_dim; // that dimension
  ArrayText shape;
  bool offsets_is_array = false;
  std::size_t offsets_count = 0;
  std::optional<std::uint64_t> offsets[2];
  ArrayText offsets_text;

  void add_dim(const Scalar& v) {
    const auto d = v.as_u64();
    if (!d && !bad_dim) bad_dim = dims.size();
    if (d && !bad_dim) dims.push_back(*d);
    shape.add(v);
  }
  void add_offset(const Scalar& v) {
    if (offsets_count < 2) offsets[offsets_count] = v.as_u64();
    ++offsets_count;
    offsets_text.add(v);
  }
};

/// shape × dtype size in bytes, or why not (a dimension that is no integer, an overflow),
/// checking the dimensions in order as the format's reader does.
inline Result<std::uint64_t> byte_size(const std::string& file, const std::string& name, const EntryDraft& d,
                                       Dtype dtype) {
  std::uint64_t bits = dtype_bits(dtype);
  for (auto dim : d.dims) {
    if (dim != 0 && bits > UINT64_MAX / dim)
      return fail(Errc::invalid_shape, file, name, "shape " + d.shape.closed() + " overflows 64 bits of data");
    bits *= dim;
  }
  if (d.bad_dim)
    return fail(Errc::invalid_shape, file, name,
                "shape " + d.shape.closed() + ": dimension " + std::to_string(*d.bad_dim) +
                    " is not a non-negative integer");
  if (bits % 8 != 0)
    return fail(Errc::size_mismatch, file, name,
                "shape " + d.shape.closed() + " of " + std::string(dtype_name(dtype)) + " is not a whole number of bytes");
  return bits / 8;
}

/// The closed entry @p d of tensor @p name into @p out (taking the name and dimensions), or
/// the first thing wrong with it.
inline Result<void> finish_entry(const std::string& file, std::string& name, EntryDraft& d,
                                 std::uint64_t data_size, TensorInfo& out) {
  if (!d.dtype || !d.dtype->is_string()) return fail(Errc::invalid_entry, file, name, "entry has no \"dtype\" string");
  if (!d.shape_is_array) return fail(Errc::invalid_entry, file, name, "entry has no \"shape\" array");
  if (!d.offsets_is_array || d.offsets_count != 2)
    return fail(Errc::invalid_entry, file, name, "entry has no \"data_offsets\" pair");
  auto dtype = parse_dtype(d.dtype->string);
  if (!dtype) return fail(Errc::unknown_dtype, file, name, "unknown dtype " + d.dtype->message_text());
  auto size = byte_size(file, name, d, *dtype);
  if (!size) return fail(size.error());
  const std::string off = d.offsets_text.closed();
  const auto b = d.offsets[0], e = d.offsets[1];
  if (!b || !e) return fail(Errc::invalid_entry, file, name, "data_offsets " + off + " are not non-negative integers");
  if (*e < *b) return fail(Errc::offsets_out_of_order, file, name, "data_offsets " + off + " end before they begin");
  if (*e > data_size)
    return fail(Errc::offsets_out_of_range, file, name,
                "data_offsets " + off + " run past the end of the data section (" + std::to_string(data_size) + " bytes)");
  if (*e - *b != *size)
    return fail(Errc::size_mismatch, file, name,
                "shape " + d.shape.closed() + " of " + std::string(dtype_name(*dtype)) + " is " + std::to_string(*size) +
                    " bytes, but data_offsets " + off + " hold " + std::to_string(*e - *b));
  out.name = std::move(name);
  out.dtype = *dtype;
  out.shape = std::move(d.dims);
  out.begin = *b;
  out.end = *e;
  return {};
}

/**
 * @brief The header's schema as a SAX handler: builds Header rows as the events arrive and
 *        refuses, at the first event that shows it, a structure the format does not have.
 *        Keys are checked for duplicates by hashing, per open object.
 */
enum class HeaderAt { top, header, metadata, entry, shape, offsets };  // the container being read

class HeaderSax : public SaxSteps<HeaderAt> {
 public:
  HeaderSax(const std::string& file, std::uint64_t data_size, Header& out)
      : SaxSteps(file), data_size_(data_size), out_(out) {}

  bool value(Scalar&& v) {
    if (skip_ > 0) return true;
    switch (at_) {
      case At::top: return refuse(Errc::header_not_object, "", std::string("header is ") + v.kind() + ", not a JSON object");
      case At::header: return not_object(v.kind());
      case At::metadata:
        if (!v.is_string())
          return refuse(Errc::invalid_metadata, "",
                        "__metadata__ value of '" + printable(key_) + "' is " + v.kind() + ", not a string");
        out_.metadata.emplace(std::move(key_), std::move(v.string));
        return true;
      case At::entry: return entry_value(std::move(v));
      case At::shape: draft_.add_dim(v); return true;
      case At::offsets: draft_.add_offset(v); return true;
    }
    return true;
  }

  bool open(bool object) {
    if (object) keys_.push();
    if (skip_ > 0 || (at_ == At::entry && slot_ == Slot::other)) return skip_in();
    switch (at_) {
      case At::top:
        if (!object) return refuse(Errc::header_not_object, "", "header is an array, not a JSON object");
        return go(At::header);
      case At::header:
        if (!object) return not_object("an array");
        at_ = slot_ == Slot::metadata ? At::metadata : At::entry;
        draft_ = EntryDraft{};
        return true;
      case At::metadata:
        return refuse(Errc::invalid_metadata, "", "__metadata__ value of '" + printable(key_) + "' is " +
                                                     kind(object ? json::value_t::object : json::value_t::array) +
                                                     ", not a string");
      case At::entry: return entry_open(object);
      case At::shape:
        return refuse(Errc::invalid_shape, name_,
                      "shape " + draft_.shape.open_with(object ? "{..." : "[...") + ": dimension " +
                          std::to_string(draft_.shape.size()) +
                          " is " + (object ? "an object" : "an array") + ", not a non-negative integer");
      case At::offsets:
        return refuse(Errc::invalid_entry, name_,
                      "data_offsets " + draft_.offsets_text.open_with(object ? "{..." : "[...") +
                          " are not non-negative integers");
    }
    return true;
  }

  bool key(std::string& k) {
    if (!keys_.insert(k)) {
      if (skip_ == 0 && at_ == At::header) return refuse(Errc::duplicate_name, k, "appears twice in the header");
      return refuse(Errc::duplicate_name, "", "key '" + printable(k) + "' appears twice in one object of the header");
    }
    if (skip_ > 0) return true;
    if (at_ == At::header) {
      slot_ = k == "__metadata__" ? Slot::metadata : Slot::entry;
      name_ = std::move(k);
    } else if (at_ == At::entry) {
      slot_ = k == "dtype" ? Slot::dtype : k == "shape" ? Slot::shape : k == "data_offsets" ? Slot::offsets : Slot::other;
    } else {
      key_ = std::move(k);
    }
    return true;
  }

  bool close(bool object) {
    if (object) keys_.pop();
    if (skip_ > 0) return skip_out();
    switch (at_) {
      case At::shape:
      case At::offsets: return go(At::entry);
      case At::metadata: return go(At::header);
      case At::entry: return go(At::header) && finish();
      default: return go(At::top);
    }
  }


 private:
  using At = HeaderAt;
  enum class Slot { metadata, entry, dtype, shape, offsets, other };  // what the key announced

  bool not_object(const char* what_it_is) {
    if (slot_ == Slot::metadata)
      return refuse(Errc::invalid_metadata, "", std::string("__metadata__ is ") + what_it_is + ", not an object");
    return refuse(Errc::invalid_entry, name_, std::string("entry is ") + what_it_is + ", not an object");
  }
  bool entry_value(Scalar&& v) {
    if (slot_ == Slot::dtype) draft_.dtype = std::move(v);
    if (slot_ == Slot::shape) draft_.shape_is_array = false;
    if (slot_ == Slot::offsets) draft_.offsets_is_array = false;
    return true;
  }
  bool entry_open(bool object) {
    if (slot_ == Slot::dtype) return refuse(Errc::invalid_entry, name_, "entry has no \"dtype\" string");
    if (slot_ == Slot::shape) {
      if (object) return refuse(Errc::invalid_entry, name_, "entry has no \"shape\" array");
      draft_.shape_is_array = true;
      return go(At::shape);
    }
    if (object) return refuse(Errc::invalid_entry, name_, "entry has no \"data_offsets\" pair");
    draft_.offsets_is_array = true;
    return go(At::offsets);
  }
  bool finish() {
    TensorInfo t;
    if (auto r = finish_entry(file_, name_, draft_, data_size_, t); !r) {
      error = r.error();
      return false;
    }
    out_.tensors.push_back(std::move(t));
    return true;
  }

  std::uint64_t data_size_;
  Header& out_;
  Slot slot_ = Slot::entry;
  std::string name_, key_;  // the tensor being read; the metadata key whose value comes next
  EntryDraft draft_;
  KeyStack keys_;  // the keys of each open object
};

}  // namespace hipfile::safetensors::detail
