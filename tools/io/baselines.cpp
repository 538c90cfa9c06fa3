// SPDX-License-Identifier: MIT
#include "baselines.hpp"

#include "errors.hpp"
#include "stopwatch.hpp"

#include <hip/hip_runtime_api.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace hipfile::tools::io {
namespace {

// Full pread/pwrite of [off, off + n) of `path` (open as fd), retrying short transfers; throws
// on error or early EOF.
void transfer(bool read, int fd, const std::string& path, char* buf, std::uint64_t n, std::uint64_t off) {
  std::uint64_t done = 0;
  while (done < n) {
    ssize_t got = read ? pread(fd, buf + done, n - done, static_cast<off_t>(off + done))
                       : pwrite(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw Failure{fmt::format("{} of {} bytes at {} of {}: {}", read ? "pread" : "pwrite", n, off, path,
                                std::strerror(errno))};
    if (got == 0) throw Failure{fmt::format("pread at {} of {}: unexpected end of file", off + done, path)};
    done += static_cast<std::uint64_t>(got);
  }
}

void copy_block(bool to_device, void* dev, void* host, std::uint64_t n, int device) {
  hipError_t e = to_device ? hipMemcpy(dev, host, n, hipMemcpyHostToDevice)
                           : hipMemcpy(host, dev, n, hipMemcpyDeviceToHost);
  if (e != hipSuccess)
    check_hip(e, fmt::format("pinned hipMemcpy {} GPU {}", to_device ? "host to" : "to host from", device));
}

}  // namespace

CopyBench::CopyBench(const std::vector<int>& devices, std::uint64_t bytes, std::uint64_t block)
    : bytes_(bytes), block_(std::min(block, bytes)) {
  for (std::size_t s = 0; s < devices.size(); ++s) {
    const int d = devices[s];
    copiers_.push_back(Worker{d, s, {}, bytes, 0});
    host_.emplace_back(MemKind::Pinned, block_, d);
    device_.emplace_back(MemKind::Device, block_, d);
    std::memset(host_.back().data(), 0x5a, block_);
    check_hip(hipSetDevice(d), fmt::format("hipSetDevice({})", d));
    for (bool to_device : {true, false}) copy_block(to_device, device_.back().data(), host_.back().data(), block_, d);
    check_hip(hipDeviceSynchronize(), fmt::format("hipDeviceSynchronize on GPU {}", d));
  }
  check_hip(hipSetDevice(devices.front()), "hipSetDevice");
}

PassTiming CopyBench::run(bool to_device) {
  return run_parallel(copiers_, copiers_.size(), [&](std::size_t s) {
    for (std::uint64_t done = 0; done < bytes_; done += block_)
      copy_block(to_device, device_[s].data(), host_[s].data(), std::min(block_, bytes_ - done), copiers_[s].device);
  });
}

RawBench::RawBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots, Progress& progress,
                   bool by_hand)
    : options_(options), workers_(workers), slots_(slots), progress_(progress) {
  for (const Worker& w : workers) {
    buffers_.emplace_back(MemKind::Pinned, options.io_size, w.device);
    std::memset(buffers_.back().data(), 0x5a, options.io_size);
    if (by_hand) device_.emplace_back(MemKind::Device, options.io_size, w.device);
  }
}

PassTiming RawBench::run(const std::vector<DataFile>& files) {
  bool read = options_.op == Op::Read;
  return run_parallel(workers_, slots_, [&](std::size_t w) {
    char* buf = static_cast<char*>(buffers_[w].data());
    void* dev = device_.empty() ? nullptr : device_[w].data();
    const DataFile& file = files.at(workers_[w].file);
    for (const Request& r : workers_[w].requests) {
      if (dev != nullptr && !read)
        check_hip(hipMemcpy(buf, dev, r.length, hipMemcpyDeviceToHost), "by-hand hipMemcpy device to host");
      transfer(read, file.fd(), file.path(), buf, r.length, r.offset);
      if (dev != nullptr && read)
        check_hip(hipMemcpy(dev, buf, r.length, hipMemcpyHostToDevice), "by-hand hipMemcpy host to device");
      progress_.add(r.length);
    }
  });
}

StreamBench::StreamBench(const Options& options, const std::vector<Worker>& workers,
                         const std::vector<DataFile>& files, Progress& progress)
    : progress_(progress) {
  const std::uint64_t block = std::clamp<std::uint64_t>(options.io_size, 1u << 20, 16u << 20);
  // Each file's share of the pass (the whole pass with one file), read from its offset 0.
  std::vector<std::uint64_t> share(files.size(), 0);
  for (const Worker& w : workers) share.at(w.file) += w.bytes;
  for (std::size_t f = 0; f < files.size(); ++f)
    for (std::uint64_t off = 0; off < share[f]; off += block) blocks_.push_back({f, {off, std::min(block, share[f] - off)}});
  Worker w;
  w.device = workers.at(0).device;
  w.bytes = options.total;
  reader_.push_back(std::move(w));
  buffer_ = Memory(MemKind::Pinned, block, reader_[0].device);
  for (const DataFile& f : files) {
    paths_.push_back(f.path());
    fds_.push_back(::open(f.path().c_str(), O_RDONLY | O_CLOEXEC));
    if (fds_.back() < 0) {
      const int error = errno;
      fds_.pop_back();
      for (int fd : fds_) ::close(fd);
      throw Failure{fmt::format("open {} for the stream baseline: {}", f.path(), std::strerror(error))};
    }
  }
}

StreamBench::~StreamBench() {
  for (int fd : fds_) ::close(fd);
}

PassTiming StreamBench::run() {
  return run_parallel(reader_, 1, [&](std::size_t) {
    for (const Block& b : blocks_) {
      transfer(true, fds_[b.file], paths_[b.file], static_cast<char*>(buffer_.data()), b.request.length,
               b.request.offset);
      progress_.add(b.request.length);
    }
  });
}

NaiveBench::NaiveBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots,
                       Progress& progress)
    : options_(options), workers_(workers), progress_(progress), host_(MemKind::Pageable, options.io_size, 0) {
  device_.resize(slots);
  for (const Worker& w : workers)
    if (device_[w.slot].data() == nullptr) device_[w.slot] = Memory(MemKind::Device, options.io_size, w.device);
}

double NaiveBench::run(const std::vector<DataFile>& files) {
  bool read = options_.op == Op::Read;
  char* host = static_cast<char*>(host_.data());
  Stopwatch clock;
  for (const Worker& w : workers_) {
    check_hip(hipSetDevice(w.device), "hipSetDevice");
    void* dev = device_[w.slot].data();
    const DataFile& file = files.at(w.file);
    for (const Request& r : w.requests) {
      if (read) {
        transfer(true, file.fd(), file.path(), host, r.length, r.offset);
        check_hip(hipMemcpy(dev, host, r.length, hipMemcpyHostToDevice), "naive hipMemcpy host to device");
      } else {
        check_hip(hipMemcpy(host, dev, r.length, hipMemcpyDeviceToHost), "naive hipMemcpy device to host");
        transfer(false, file.fd(), file.path(), host, r.length, r.offset);
      }
      progress_.add(r.length);
    }
  }
  return clock.seconds();
}

}  // namespace hipfile::tools::io
