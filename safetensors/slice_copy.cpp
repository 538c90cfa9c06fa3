// SPDX-License-Identifier: MIT
// A strided slice's rows: one pread of the span that holds them into pinned staging, then a
// 2-D copy that keeps each row's part.
#include "slice_copy.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include <hipfile++/error.hpp>

#include "fail.hpp"
#include "fd.hpp"
#include "shard_files.hpp"

namespace hipfile::safetensors::detail {
namespace {

}  // namespace

int device_of(const void* p) {
  hipPointerAttribute_t a{};
  if (hipPointerGetAttributes(&a, p) != hipSuccess) {
    (void)hipGetLastError();  // pageable memory: an error HIP also records as the last one
    return -1;
  }
#if HIP_VERSION_MAJOR >= 6
  const bool device = a.type == hipMemoryTypeDevice || a.type == hipMemoryTypeManaged;
#else
  const bool device = a.memoryType == hipMemoryTypeDevice;  // ROCm 5's field; managed memory is Device there
#endif
  return device ? a.device : -1;
}

namespace {

/// Runs with @p device current and restores the calling thread's device afterwards: the caller's
/// own thread is one of the reading threads.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (hipGetDevice(&saved_) == hipSuccess && saved_ != device) error_ = hipSetDevice(device);
  }
  ~DeviceScope() {
    if (saved_ >= 0) (void)hipSetDevice(saved_);
  }
  [[nodiscard]] hipError_t error() const { return error_; }

 private:
  int saved_ = -1;
  hipError_t error_ = hipSuccess;
};

/**
 * Pinned staging kept from one fill to the next: the driver takes milliseconds to make it and
 * serialises the making (bench/RESULTS.md, "The first load"), which a loop of get_slice() calls
 * would pay at every call. At most kKept buffers of the usual size are kept (what the default
 * four reading threads use); larger ones, grown for long rows, are freed.
 */
class StagingCache {
 public:
  static StagingCache& instance() {
    static auto* cache = new StagingCache;  // never destroyed: the HIP runtime may be gone at exit
    return *cache;
  }
  /// A kept buffer of at least @p bytes ({nullptr, 0} when there is none).
  std::pair<void*, std::size_t> take(std::size_t bytes) {
    std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->second < bytes) continue;
      auto found = *it;
      kept_.erase(it);
      return found;
    }
    return {nullptr, 0};
  }
  /// Keeps @p p (of @p bytes) for a later fill, or frees it.
  void give(void* p, std::size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      if (bytes == kStagingBytes && kept_.size() < kKept) {
        kept_.emplace_back(p, bytes);
        return;
      }
    }
    (void)hipHostFree(p);
  }

 private:
  static constexpr std::size_t kKept = 4;
  std::mutex mutex_;
  std::vector<std::pair<void*, std::size_t>> kept_;
};

}  // namespace

SliceCopier::~SliceCopier() {
  if (stream_ != nullptr) {
    DeviceScope on(stream_device_);
    (void)hipStreamDestroy(stream_);
  }
  if (staging_ != nullptr) StagingCache::instance().give(staging_, staging_bytes_);
}

Result<void> SliceCopier::reserve(std::size_t bytes, const std::string& file, const std::string& tensor) {
  if (bytes <= staging_bytes_) return {};
  if (staging_ != nullptr) StagingCache::instance().give(staging_, staging_bytes_);
  std::tie(staging_, staging_bytes_) = StagingCache::instance().take(bytes);
  if (staging_ != nullptr) return {};
  const std::size_t size = std::max<std::size_t>(bytes, kStagingBytes);
  if (hipError_t e = hipHostMalloc(&staging_, size, hipHostMallocDefault); e != hipSuccess) {
    staging_ = nullptr;
    return fail(Errc::device_error, file, tensor, "pinned staging of " + std::to_string(size) + " bytes",
                hipfile::Error::from_hip(e));
  }
  staging_bytes_ = size;
  return {};
}

Result<void> SliceCopier::to_device(const RowBlock& b, int device, const std::string& file, const std::string& tensor) {
  DeviceScope on(device);
  if (on.error() != hipSuccess)
    return fail(Errc::device_error, file, tensor, "hipSetDevice(" + std::to_string(device) + ")",
                hipfile::Error::from_hip(on.error()));
  if (stream_ != nullptr && stream_device_ != device) {
    DeviceScope old(stream_device_);
    (void)hipStreamDestroy(stream_);
    stream_ = nullptr;
  }
  if (stream_ == nullptr) {
    // A blocking stream: its copy waits for the work already queued on the NULL stream (a
    // kernel still writing or reading the destination), as hipFileRead's own copies do.
    if (hipError_t e = hipStreamCreateWithFlags(&stream_, hipStreamDefault); e != hipSuccess) {
      stream_ = nullptr;
      return fail(Errc::device_error, file, tensor, "hipStreamCreateWithFlags", hipfile::Error::from_hip(e));
    }
    stream_device_ = device;
  }
  hipError_t e = hipMemcpy2DAsync(b.dst, b.width, staging_, b.pitch, b.width, b.rows, hipMemcpyHostToDevice, stream_);
  if (e == hipSuccess) e = hipStreamSynchronize(stream_);
  if (e != hipSuccess)
    return fail(Errc::device_error, file, tensor,
                "hipMemcpy2DAsync of " + std::to_string(b.rows) + " rows of " + std::to_string(b.width) +
                    " bytes to device " + std::to_string(device),
                hipfile::Error::from_hip(e));
  return {};
}

Result<void> SliceCopier::copy(const RowBlock& b, const std::string& file, const std::string& tensor) {
  const std::uint64_t span = (b.rows - 1) * b.pitch + b.width;
  if (auto r = reserve(static_cast<std::size_t>(span), file, tensor); !r) return r;
  if (int err = pread_exact(b.fd, staging_, static_cast<std::size_t>(span), b.file_offset); err != 0) {
    return fail(read_failure(file, tensor, span, b.file_offset, hipfile::Error::from_errno(err)));
  }
  const int device = device_of(b.dst);
  if (device >= 0) return to_device(b, device, file, tensor);
  const auto* src = static_cast<const std::byte*>(staging_);
  for (std::uint64_t r = 0; r < b.rows; ++r) std::memcpy(b.dst + r * b.width, src + r * b.pitch, b.width);
  return {};
}

}  // namespace hipfile::safetensors::detail
