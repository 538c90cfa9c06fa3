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

// Full pread/pwrite of [off, off + n), retrying short transfers; throws on error or early EOF.
void transfer(bool read, int fd, char* buf, std::uint64_t n, std::uint64_t off) {
  std::uint64_t done = 0;
  while (done < n) {
    ssize_t got = read ? pread(fd, buf + done, n - done, static_cast<off_t>(off + done))
                       : pwrite(fd, buf + done, n - done, static_cast<off_t>(off + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Failure{fmt::format("{} of {} bytes at {}: {}", read ? "pread" : "pwrite", n, off, std::strerror(errno))};
    if (got == 0) throw Failure{fmt::format("pread at {}: unexpected end of file", off + done)};
    done += static_cast<std::uint64_t>(got);
  }
}

}  // namespace

double time_pinned_copy(int device, bool to_device, std::uint64_t bytes, std::uint64_t block) {
  block = std::min(block, bytes);
  Memory host(MemKind::Pinned, block, device);
  Memory dev(MemKind::Device, block, device);
  std::memset(host.data(), 0x5a, block);
  auto copy = [&](std::uint64_t n) {
    hipError_t e = to_device ? hipMemcpy(dev.data(), host.data(), n, hipMemcpyHostToDevice)
                             : hipMemcpy(host.data(), dev.data(), n, hipMemcpyDeviceToHost);
    check_hip(e, to_device ? "pinned hipMemcpy host to device" : "pinned hipMemcpy device to host");
  };
  copy(block);
  check_hip(hipDeviceSynchronize(), "hipDeviceSynchronize");
  Stopwatch clock;
  for (std::uint64_t done = 0; done < bytes; done += block) copy(std::min(block, bytes - done));
  return clock.seconds();
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

PassTiming RawBench::run(int fd) {
  bool read = options_.op == Op::Read;
  return run_parallel(workers_, slots_, [&](std::size_t w) {
    char* buf = static_cast<char*>(buffers_[w].data());
    void* dev = device_.empty() ? nullptr : device_[w].data();
    for (const Request& r : workers_[w].requests) {
      if (dev != nullptr && !read)
        check_hip(hipMemcpy(buf, dev, r.length, hipMemcpyDeviceToHost), "by-hand hipMemcpy device to host");
      transfer(read, fd, buf, r.length, r.offset);
      if (dev != nullptr && read)
        check_hip(hipMemcpy(dev, buf, r.length, hipMemcpyHostToDevice), "by-hand hipMemcpy host to device");
      progress_.add(r.length);
    }
  });
}

StreamBench::StreamBench(const Options& options, const std::vector<Worker>& workers, Progress& progress)
    : progress_(progress) {
  const std::uint64_t block = std::clamp<std::uint64_t>(options.io_size, 1u << 20, 16u << 20);
  Worker w;
  w.device = workers.at(0).device;
  for (std::uint64_t off = 0; off < options.total; off += block)
    w.requests.push_back({off, std::min(block, options.total - off)});
  w.bytes = options.total;
  reader_.push_back(std::move(w));
  buffer_ = Memory(MemKind::Pinned, block, reader_[0].device);
  fd_ = ::open(options.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw Failure{fmt::format("open {} for the stream baseline: {}", options.file, std::strerror(errno))};
}

StreamBench::~StreamBench() {
  if (fd_ >= 0) ::close(fd_);
}

PassTiming StreamBench::run() {
  return run_parallel(reader_, 1, [&](std::size_t) {
    for (const Request& r : reader_[0].requests) {
      transfer(true, fd_, static_cast<char*>(buffer_.data()), r.length, r.offset);
      progress_.add(r.length);
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

double NaiveBench::run(int fd) {
  bool read = options_.op == Op::Read;
  char* host = static_cast<char*>(host_.data());
  Stopwatch clock;
  for (const Worker& w : workers_) {
    check_hip(hipSetDevice(w.device), "hipSetDevice");
    void* dev = device_[w.slot].data();
    for (const Request& r : w.requests) {
      if (read) {
        transfer(true, fd, host, r.length, r.offset);
        check_hip(hipMemcpy(dev, host, r.length, hipMemcpyHostToDevice), "naive hipMemcpy host to device");
      } else {
        check_hip(hipMemcpy(host, dev, r.length, hipMemcpyDeviceToHost), "naive hipMemcpy device to host");
        transfer(false, fd, host, r.length, r.offset);
      }
      progress_.add(r.length);
    }
  }
  return clock.seconds();
}

}  // namespace hipfile::tools::io
