// SPDX-License-Identifier: MIT
/**
 * @file safetensors/write.hpp
 * @brief write(): tensors in device (or host) memory into a safetensors file that the
 *        safetensors Python package reads unchanged.
 */
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "../file.hpp"
#include "detail/fd.hpp"
#include "detail/json.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "loaded.hpp"

namespace hipfile::safetensors {

/// One tensor to write: its bytes are in device memory or host memory.
struct TensorData {
  std::string name;
  Dtype dtype = Dtype::U8;
  std::vector<std::uint64_t> shape;
  std::span<const std::byte> data;
};

struct WriteOptions {
  /// The header's __metadata__ (e.g. {"format": "pt"}); left out when empty.
  std::map<std::string, std::string> metadata;
  /// Tensors written at once (each hipFileWrite is itself parallel inside the library).
  unsigned threads = 4;
};

/// The tensors of @p loaded as TensorData views (to write a loaded checkpoint back).
[[nodiscard]] inline std::vector<TensorData> tensors_of(const LoadedCheckpoint& loaded) {
  std::vector<TensorData> out;
  for (const auto& t : loaded.tensors())
    out.push_back(TensorData{t.name, t.dtype, t.shape, {static_cast<const std::byte*>(t.data), t.bytes}});
  return out;
}

namespace detail {

inline Result<void> check_tensor(const std::string& path, const TensorData& t, std::set<std::string_view>& names) {
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

/// Data order: larger elements first (stable), so with an 8-byte aligned data section every
/// tensor sits at a multiple of its element size, as the safetensors package lays files out.
inline std::vector<std::size_t> data_order(std::span<const TensorData> tensors) {
  std::vector<std::size_t> order(tensors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return dtype_bits(tensors[a].dtype) > dtype_bits(tensors[b].dtype);
  });
  return order;
}

/// The 8-byte length, the JSON header (padded with spaces to a multiple of 8), and each
/// tensor's file offset.
inline std::string header_bytes(std::span<const TensorData> tensors, const std::vector<std::size_t>& order,
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
inline Result<void> write_data(const std::string& path, const File& file, std::span<const TensorData> tensors,
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
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(tensors.size())));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (first) return fail(std::move(*first));
  return {};
}

}  // namespace detail

/**
 * @brief Writes @p tensors to @p path (created or replaced).
 *
 * Everything is checked before the file is touched (names unique, non-empty, UTF-8; data size
 * = shape × dtype size). The file is written as PATH.tmp.PID and renamed over @p path only
 * when complete, so a failure never leaves a partial checkpoint under the name (nor destroys
 * the old one). The header is written with pwrite, the tensor data with hipFileWrite from the
 * tensors' memory, several tensors at once.
 */
[[nodiscard]] inline Result<void> write(const std::string& path, std::span<const TensorData> tensors,
                                        const WriteOptions& options = {}) {
  using namespace detail;
  std::set<std::string_view> names;
  for (const auto& t : tensors)
    if (auto r = check_tensor(path, t, names); !r) return fail(r.error());
  for (const auto& [k, v] : options.metadata)
    if (utf8_error(k) || utf8_error(v)) return fail(Errc::invalid_metadata, path, "", "a metadata string is not valid UTF-8");
  std::vector<std::uint64_t> offsets;
  const std::string header = header_bytes(tensors, data_order(tensors), options.metadata, offsets);

  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto file = File::open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644, DirectIo::off);
  if (!file) return fail(Errc::io_error, path, "", "cannot create its temporary file", file.error());
  auto done = [&]() -> Result<void> {
    if (int e = pwrite_all(file->fd(), header.data(), header.size(), 0); e != 0)
      return fail(Errc::io_error, path, "", "writing the header", hipfile::Error::from_errno(e));
    if (auto r = write_data(path, *file, tensors, offsets, options.threads); !r) return r;
    if (auto r = file->close(); !r) return fail(Errc::io_error, path, "", "close", r.error());
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      return fail(Errc::io_error, path, "", "renaming " + tmp, hipfile::Error::last_errno());
    return {};
  }();
  if (!done) {
    file->reset();
    ::unlink(tmp.c_str());
  }
  return done;
}

}  // namespace hipfile::safetensors
