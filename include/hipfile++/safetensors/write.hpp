// SPDX-License-Identifier: MIT
/**
 * @file safetensors/write.hpp
 * @brief write(): tensors in device (or host) memory into a safetensors file that the
 *        safetensors Python package reads unchanged.
 */
#pragma once

#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "../file.hpp"
#include "detail/fd.hpp"
#include "detail/json.hpp"
#include "detail/workers.hpp"
#include "dtype.hpp"
#include "error.hpp"
#include "header.hpp"
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
  /// Tensors written at once (each hipFileWrite is itself parallel inside the library); at
  /// most detail::kMaxThreads (64) are used.
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

/// A tensor in device memory must lie inside one allocation: hipFileWrite would otherwise
/// fail (or read what is not the tensor's) halfway through the file. Host memory that HIP does
/// not know has no allocation to check against and is taken as given.
inline Result<void> check_span(const std::string& path, const TensorData& t) {
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
inline Result<void> check_arguments(const std::string& path, std::span<const TensorData> tensors,
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
  run_on_threads(std::min<std::size_t>(threads, tensors.size()), worker);
  if (first) return fail(std::move(*first));
  return {};
}

/// Writes a fresh suffix for a temporary's name into @p out: 0, or an errno.
using SuffixSource = int (*)(std::string& out);

/// 16 hex digits from getrandom(2): a name no one can plant a link or file at in advance.
inline int random_suffix(std::string& out) {
  unsigned char bytes[8];
  for (std::size_t got = 0; got < sizeof bytes;) {
    const ssize_t r = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return errno;
    got += static_cast<std::size_t>(r);
  }
  static constexpr char hex[] = "0123456789abcdef";
  out.clear();
  for (unsigned char b : bytes) out.append({hex[b >> 4], hex[b & 15]});
  return 0;
}

/// Names create_temporary() tries: a random name taken by chance once is already unlikely;
/// many in a row are names someone planted, and the write fails rather than loop.
inline constexpr int kTemporaryAttempts = 16;

struct Temporary {
  File file;
  std::string name;
};

/// Creates PATH.tmp.SUFFIX exclusively (O_EXCL, and O_NOFOLLOW: never through a link at the
/// name, which would have the write truncate and fill the link's target); a name that exists
/// is left alone for another.
inline Result<Temporary> create_temporary(const std::string& path, mode_t mode, SuffixSource next = random_suffix) {
  std::string suffix;
  for (int attempt = 1;; ++attempt) {
    if (int e = next(suffix); e != 0)
      return fail(Errc::io_error, path, "", "naming its temporary file", hipfile::Error::from_errno(e));
    std::string name = path + ".tmp." + suffix;
    auto file = File::open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode, DirectIo::off);
    if (file) return Temporary{std::move(*file), std::move(name)};
    if (file.error().sys_errno() != EEXIST || attempt == kTemporaryAttempts)
      return fail(Errc::io_error, path, "", "cannot create its temporary file", file.error());
  }
}

/// The permission bits of the regular file at @p path, which write() gives the file that
/// replaces it; none when there is none (the new file then has 0666 less the umask).
inline std::optional<mode_t> kept_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return st.st_mode & 0777;
}

/// fsync(2) of the folder holding @p path, so that a rename in it survives a power loss: 0
/// or an errno. A folder whose file system cannot sync it (EINVAL) is taken as synced.
inline int sync_folder(const std::string& path) noexcept {
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int fd = hipfile::detail::open_retry(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return errno;
  const int e = ::fsync(fd) == 0 || errno == EINVAL ? 0 : errno;
  hipfile::detail::close_quietly(fd);
  return e;
}

/// Makes the complete temporary the file at @p path: its data on the disk (fsync), then the
/// rename, then the folder's entry on the disk. @p renamed tells whether the rename was made.
inline Result<void> replace_with(const std::string& path, Temporary& tmp, bool& renamed) {
  if (::fsync(tmp.file.fd()) != 0)
    return fail(Errc::io_error, path, "", "fsync of " + tmp.name, hipfile::Error::last_errno());
  if (auto r = tmp.file.close(); !r) return fail(Errc::io_error, path, "", "close", r.error());
  if (::rename(tmp.name.c_str(), path.c_str()) != 0)
    return fail(Errc::io_error, path, "", "renaming " + tmp.name, hipfile::Error::last_errno());
  renamed = true;
  if (int e = sync_folder(path); e != 0)
    return fail(Errc::io_error, path, "", "fsync of its folder after the rename", hipfile::Error::from_errno(e));
  return {};
}

}  // namespace detail

/**
 * @brief Writes @p tensors to @p path (created or replaced).
 *
 * Everything is checked before the file is touched: names unique, non-empty, UTF-8; data size
 * = shape × dtype size; each tensor in device memory inside one allocation; the header within
 * the format's kMaxHeaderBytes. The file is written as PATH.tmp.RANDOM (created exclusively,
 * never through a link), synced, and renamed over @p path only when complete, then the folder
 * is synced: a failure, or a power loss, never leaves a partial checkpoint under the name nor
 * destroys the old one. The new file keeps the permission bits of the file it replaces (a new
 * name: 0666 less the umask). The header is written with pwrite, the tensor data with
 * hipFileWrite from the tensors' memory, several tensors at once.
 */
[[nodiscard]] inline Result<void> write(const std::string& path, std::span<const TensorData> tensors,
                                        const WriteOptions& options = {}) {
  using namespace detail;
  if (auto r = check_arguments(path, tensors, options.metadata); !r) return r;
  std::vector<std::uint64_t> offsets;
  const std::string header = header_bytes(tensors, data_order(tensors), options.metadata, offsets);
  if (header.size() - 8 > kMaxHeaderBytes)
    return fail(Errc::header_too_large, path, "", "header of " + std::to_string(header.size() - 8) +
                                                      " bytes is above the format's limit of " +
                                                      std::to_string(kMaxHeaderBytes) + " bytes");
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
