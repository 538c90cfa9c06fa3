// SPDX-License-Identifier: MIT
// write(): the arguments checked, the header laid out, the data written through hipFileWrite
// into a temporary that replaces the file only when complete.
#include <hipfile-safetensors/write.hpp>

#include <hip/hip_runtime_api.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>

#include <hipfile++/file.hpp>
#include <hipfile-safetensors/header.hpp>

#include "fail.hpp"
#include "fd.hpp"
#include "json.hpp"
#include "temporary.hpp"
#include "text.hpp"
#include "workers.hpp"

namespace hipfile::safetensors {

std::vector<TensorData> tensors_of(const LoadedCheckpoint& loaded) {
  std::vector<TensorData> out;
  for (const auto& t : loaded.tensors())
    out.push_back(TensorData{t.name, t.dtype, t.shape, {static_cast<const std::byte*>(t.data), t.bytes}});
  return out;
}

namespace detail {
namespace {

Result<void> check_tensor(const std::string& path, const TensorData& t, std::set<std::string_view>& names) {
  if (t.name.empty()) return fail(Errc::invalid_argument, path, "", "a tensor has an empty name");
  if (utf8_error(t.name)) return fail(Errc::invalid_argument, path, "", "a tensor name is not valid UTF-8");
  if (t.name == "__metadata__") return fail(Errc::invalid_argument, path, t.name, "is the reserved key of the metadata");
  if (!names.insert(t.name).second) return fail(Errc::duplicate_name, path, t.name, "is given twice");
  std::uint64_t bits = dtype_bits(t.dtype);
  for (auto d : t.shape) {
    if (d != 0 && bits > UINT64_MAX / d) return fail(Errc::invalid_shape, path, t.name, "shape overflows 64 bits of data");
    bits *= d;
  }
  if (bits % 8 != 0 || bits / 8 != t.data.size())
    return fail(Errc::size_mismatch, path, t.name,
                "shape " + shape_text(t.shape) + " of " + std::string(dtype_name(t.dtype)) + " is " +
                    (bits % 8 ? std::to_string(bits) + " bits" : std::to_string(bits / 8) + " bytes") + ", but the data is " +
                    std::to_string(t.data.size()) + " bytes");
  if (t.data.data() == nullptr && !t.data.empty()) return fail(Errc::invalid_argument, path, t.name, "has no data pointer");
  return {};
}

/// A tensor in device memory must lie inside one allocation: hipFileWrite would otherwise
/// fail (or read what is not the tensor's) halfway through the file. Host memory that HIP does
/// not know has no allocation to check against and is taken as given.
Result<void> check_span(const std::string& path, const TensorData& t) {
  if (t.data.empty()) return {};
  hipDeviceptr_t base = nullptr;
  std::size_t size = 0;
  if (hipMemGetAddressRange(&base, &size, const_cast<std::byte*>(t.data.data())) != hipSuccess) {
    (void)hipGetLastError();  // not device memory: the runtime has no range for it
    return {};
  }
  const auto at = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(t.data.data()) -
                                           reinterpret_cast<std::uintptr_t>(base));
  const std::size_t left = at < size ? size - at : 0;
  if (t.data.size() <= left) return {};
  return fail(Errc::invalid_argument, path, t.name,
              "data of " + std::to_string(t.data.size()) + " bytes runs past its device allocation (" +
                  std::to_string(left) + " bytes from the data to the allocation's end)");
}

/// Every check write() makes before it creates anything.
Result<void> check_arguments(const std::string& path, std::span<const TensorData> tensors,
                                    const std::map<std::string, std::string>& metadata) {
  std::set<std::string_view> names;
  for (const auto& t : tensors)
    if (auto r = check_tensor(path, t, names); !r) return r;
  for (const auto& t : tensors)
    if (auto r = check_span(path, t); !r) return r;
  for (const auto& [k, v] : metadata)
    if (utf8_error(k) || utf8_error(v)) return fail(Errc::invalid_metadata, path, "", "a metadata string is not valid UTF-8");
  return {};
}

/// Data order: larger elements first (stable), so with an 8-byte aligned data section every
/// tensor sits at a multiple of its element size, as the safetensors package lays files out.
std::vector<std::size_t> data_order(std::span<const TensorData> tensors) {
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return dtype_bits(tensors[a].dtype) > dtype_bits(tensors[b].dtype);
  });
  return order;
}

/// The 8-byte length, the JSON header (padded with spaces to a multiple of 8), and each
/// tensor's file offset.
std::string header_bytes(std::span<const TensorData> tensors, const std::vector<std::size_t>& order,
                                const std::map<std::string, std::string>& metadata, std::vector<std::uint64_t>& offsets) {
  nlohmann::ordered_json h = nlohmann::ordered_json::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  std::uint64_t at = 0;
  std::vector<std::uint64_t> begin(tensors.size());
  for (std::size_t i : order) {
    const auto& t = tensors[i];
    h[t.name] = {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}, {"data_offsets", {at, at + t.data.size()}}};
    begin[i] = at;
    at += t.data.size();
  }
  std::string json = h.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((json.size() >> (8 * i)) & 0xFF);
  out += json;
  offsets.resize(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) offsets[i] = out.size() + begin[i];
  return out;
}

/// Writes every tensor at its offset through hipFileWrite, @p threads at a time.
Result<void> write_data(const std::string& path, const File& file, std::span<const TensorData> tensors,
                               const std::vector<std::uint64_t>& offsets, unsigned threads) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::optional<Error> first;
  auto worker = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < tensors.size();) {
      if (tensors[i].data.empty()) continue;
      auto ok = file.write_all(tensors[i].data, static_cast<std::int64_t>(offsets[i]));
      if (ok) continue;
      std::lock_guard lock(mutex);
      if (!first)
        first = Error(Errc::io_error, path, tensors[i].name,
                      "writing " + std::to_string(tensors[i].data.size()) + " bytes at offset " + std::to_string(offsets[i]),
                      ok.error());
      next = tensors.size();
      return;
    }
  };
  run_on_threads(std::min<std::size_t>(threads, tensors.size()), worker);
  if (first) return fail(std::move(*first));
  return {};
}

}  // namespace

/// What a path that is not a regular file is refused with: what is there and the rule.
std::string destination_problem(mode_t mode) {
  if (S_ISLNK(mode))
    return "is a symbolic link: a checkpoint neither replaces a link nor is written through one (name the file "
           "it points to)";
  return std::string("is ") + file_type_name(mode) +
         ", not a regular file: a checkpoint replaces only a regular file or takes a missing name";
}

}  // namespace detail

Result<void> check_destination(const std::string& path) {
  using detail::fail;
  if (path.empty()) return fail(Errc::invalid_argument, path, "", "the path is empty");
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    return fail(Errc::io_error, path, "", "cannot examine the destination", hipfile::Error::last_errno());
  }
  if (S_ISREG(st.st_mode)) return {};
  return fail(Errc::invalid_argument, path, "", detail::destination_problem(st.st_mode));
}

Result<void> write(const std::string& path, std::span<const TensorData> tensors, const WriteOptions& options) {
  using namespace detail;
  if (auto r = check_arguments(path, tensors, options.metadata); !r) return r;
  std::vector<std::uint64_t> offsets;
  const std::string header = header_bytes(tensors, data_order(tensors), options.metadata, offsets);
  if (header.size() - 8 > kMaxHeaderBytes)
    return fail(Errc::header_too_large, path, "", "header of " + std::to_string(header.size() - 8) +
                                                      " bytes is above the format's limit of " +
                                                      std::to_string(kMaxHeaderBytes) + " bytes");
  if (auto r = check_destination(path); !r) return r;
  const std::optional<mode_t> kept = kept_mode(path);
  auto tmp = create_temporary(path, kept ? 0600 : 0666);
  if (!tmp) return fail(tmp.error());
  bool renamed = false;
  auto done = [&]() -> Result<void> {
    if (kept && ::fchmod(tmp->file.fd(), *kept) != 0)
      return fail(Errc::io_error, path, "", "fchmod of " + tmp->name, hipfile::Error::last_errno());
    if (int e = pwrite_all(tmp->file.fd(), header.data(), header.size(), 0); e != 0)
      return fail(Errc::io_error, path, "", "writing the header", hipfile::Error::from_errno(e));
    if (auto r = write_data(path, tmp->file, tensors, offsets, options.threads); !r) return r;
    return replace_with(path, *tmp, renamed);
  }();
  if (!done && !renamed) {
    tmp->file.reset();
    ::unlink(tmp->name.c_str());
  }
  return done;
}

}  // namespace hipfile::safetensors
