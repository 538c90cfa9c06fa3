// SPDX-License-Identifier: MIT
#include "hipfile_bench.hpp"

#include "errors.hpp"
#include "pattern.hpp"
#include "stopwatch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <vector>

namespace hipfile::tools::io {
namespace {

// Async and batch results carry a negated error in the byte count: a hipFile op error or errno.
std::string negative_result_text(ssize_t v) {
  if (IS_HIPFILE_ERR(v)) return HIPFILE_ERRSTR(v);
  return std::strerror(static_cast<int>(-v));
}

}  // namespace

HipfileBench::HipfileBench(const Options& options, const std::vector<Worker>& workers, std::size_t slots,
                           const std::vector<DataFile>& files, Progress& progress)
    : options_(options), workers_(workers), slots_(slots), progress_(progress), files_(files) {
  for (const DataFile& f : files) {
    hipFileDescr_t descr{};
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = f.fd();
    hipFileHandle_t h = nullptr;
    check_status(hipFileHandleRegister(&h, &descr), fmt::format("hipFileHandleRegister({})", f.path()));
    handles_.push_back(h);
  }

  std::size_t per_buffer = options.api == Api::Async   ? static_cast<std::size_t>(options.streams)
                           : options.api == Api::Batch ? static_cast<std::size_t>(options.batch)
                                                       : 1;
  state_.resize(workers.size());
  for (std::size_t w = 0; w < workers.size(); ++w) {
    WorkerState& s = state_[w];
    s.buffer = Memory(options.mem, per_buffer * options.io_size, workers[w].device);
    if (options.op == Op::Write) s.buffer.fill_with_pattern(0);
    if (options.registered) {
      check_status(hipFileBufRegister(s.buffer.data(), s.buffer.size(), 0),
                   fmt::format("hipFileBufRegister({} bytes of {} memory)", s.buffer.size(), mem_kind_name(options.mem)));
      s.registered = true;
    }
    if (options.api == Api::Async) {
      check_hip(hipSetDevice(workers[w].device), "hipSetDevice");
      for (int i = 0; i < options.streams; ++i) {
        hipStream_t stream = nullptr;
        check_hip(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "hipStreamCreate");
        s.streams.push_back(stream);
      }
    }
    if (options.api == Api::Batch) {
      hipFileError_t st = hipFileBatchIOSetUp(&s.batch, static_cast<unsigned>(options.batch));
      if (st.err != hipFileSuccess) {
        s.batch = nullptr;
        throw Failure{fmt::format("batch mode is not available: hipFileBatchIOSetUp({}) failed: {}", options.batch,
                                  status_text(st))};
      }
    }
  }
}

HipfileBench::~HipfileBench() {
  for (WorkerState& s : state_) {
    if (s.batch != nullptr) hipFileBatchIODestroy(s.batch);
    for (hipStream_t stream : s.streams) (void)hipStreamDestroy(stream);
    if (s.registered) (void)hipFileBufDeregister(s.buffer.data());
  }
  state_.clear();  // frees the buffers, after their deregistration
  for (hipFileHandle_t h : handles_) hipFileHandleDeregister(h);
}

std::string HipfileBench::where(std::size_t w, const Request& r) const {
  return fmt::format("{} bytes at offset {} of {}", r.length, r.offset, files_[workers_[w].file].path());
}

void HipfileBench::before_write(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify) const {
  if (!verify || options_.op != Op::Write) return;
  std::vector<unsigned char> host(r.length);
  fill_pattern(host.data(), r.offset, r.length);
  state_[w].buffer.upload(buffer_offset, host.data(), r.length);
}

void HipfileBench::after_read(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify) const {
  if (!verify || options_.op != Op::Read) return;
  std::vector<unsigned char> host(r.length);
  state_[w].buffer.download(host.data(), buffer_offset, r.length);
  if (auto bad = check_pattern(host.data(), r.offset, r.length))
    throw Failure{fmt::format("verification failed: byte at file offset {} differs (request of {}, {} memory)", *bad,
                              where(w, r), mem_kind_name(options_.mem))};
}

void HipfileBench::sync_request(std::size_t w, std::size_t buffer_offset, const Request& r, bool verify) {
  const WorkerState& s = state_[w];
  before_write(w, buffer_offset, r, verify);
  char* base = static_cast<char*>(s.buffer.data());
  std::uint64_t done = 0;
  while (done < r.length) {
    // Registered buffers are addressed as base + offset, as a cuFile program would.
    void* ptr = s.registered ? base : base + buffer_offset + done;
    hoff_t buf_off = s.registered ? static_cast<hoff_t>(buffer_offset + done) : 0;
    hoff_t file_off = static_cast<hoff_t>(r.offset + done);
    std::size_t n = r.length - done;
    ssize_t got = options_.op == Op::Read ? hipFileRead(handle(w), ptr, n, file_off, buf_off)
                                          : hipFileWrite(handle(w), ptr, n, file_off, buf_off);
    int saved = errno;
    if (got < 0)
      throw Failure{fmt::format("hipFile{} of {}: {}", options_.op == Op::Read ? "Read" : "Write", where(w, r),
                                io_error_text(got, saved))};
    if (got == 0)
      throw Failure{fmt::format("hipFileRead of {}: unexpected end of file at {}", where(w, r), r.offset + done)};
    done += static_cast<std::uint64_t>(got);
  }
  after_read(w, buffer_offset, r, verify);
  progress_.add(r.length);
}

void HipfileBench::sync_worker(std::size_t w, bool verify) {
  for (const Request& r : workers_[w].requests) sync_request(w, 0, r, verify);
}

void HipfileBench::async_worker(std::size_t w, bool verify) {
  struct Slot {
    std::size_t size;
    hoff_t file_offset;
    hoff_t buffer_offset;
    ssize_t bytes;
  };
  const WorkerState& s = state_[w];
  const auto& requests = workers_[w].requests;
  std::size_t nstreams = s.streams.size();
  // The stream reads these words when the operation runs, so they live until the final sync.
  std::vector<Slot> slots(requests.size());
  // Measured passes queue everything at once; verification goes in rounds of one request per
  // stream, because requests on one stream share that stream's buffer slot.
  std::size_t round = verify ? nstreams : requests.size();
  for (std::size_t first = 0; first < requests.size(); first += round) {
    std::size_t last = std::min(requests.size(), first + round);
    for (std::size_t i = first; i < last; ++i) {
      std::size_t k = i % nstreams;
      std::size_t buffer_offset = k * options_.io_size;
      before_write(w, buffer_offset, requests[i], verify);
      char* base = static_cast<char*>(s.buffer.data());
      slots[i] = Slot{requests[i].length, static_cast<hoff_t>(requests[i].offset),
                      s.registered ? static_cast<hoff_t>(buffer_offset) : 0, 0};
      void* ptr = s.registered ? base : base + buffer_offset;
      hipFileError_t st =
          options_.op == Op::Read
              ? hipFileReadAsync(handle(w), ptr, &slots[i].size, &slots[i].file_offset, &slots[i].buffer_offset,
                                 &slots[i].bytes, s.streams[k])
              : hipFileWriteAsync(handle(w), ptr, &slots[i].size, &slots[i].file_offset, &slots[i].buffer_offset,
                                  &slots[i].bytes, s.streams[k]);
      if (st.err != hipFileSuccess) {
        for (hipStream_t stream : s.streams) (void)hipStreamSynchronize(stream);
        throw Failure{fmt::format("async mode: hipFile{}Async of {} failed: {}",
                                  options_.op == Op::Read ? "Read" : "Write", where(w, requests[i]), status_text(st))};
      }
    }
    for (hipStream_t stream : s.streams) check_hip(hipStreamSynchronize(stream), "hipStreamSynchronize");
    for (std::size_t i = first; i < last; ++i) {
      if (slots[i].bytes != static_cast<ssize_t>(requests[i].length))
        throw Failure{fmt::format("async {} of {}: {}", op_name(options_.op), where(w, requests[i]),
                                  slots[i].bytes < 0 ? negative_result_text(slots[i].bytes)
                                                     : fmt::format("moved {} bytes", slots[i].bytes))};
      after_read(w, (i % nstreams) * options_.io_size, requests[i], verify);
      progress_.add(requests[i].length);
    }
  }
}

void HipfileBench::batch_worker(std::size_t w, bool verify) {
  const WorkerState& s = state_[w];
  const auto& requests = workers_[w].requests;
  std::size_t cap = static_cast<std::size_t>(options_.batch);
  std::vector<hipFileIOParams_t> params(cap);
  std::vector<hipFileIOEvents_t> events(cap);
  for (std::size_t first = 0; first < requests.size(); first += cap) {
    std::size_t n = std::min(cap, requests.size() - first);
    for (std::size_t i = 0; i < n; ++i) {
      const Request& r = requests[first + i];
      before_write(w, i * options_.io_size, r, verify);
      hipFileIOParams_t& p = params[i];
      p = hipFileIOParams_t{};
      p.mode = hipFileBatch;
      p.u.batch.devPtr_base = s.buffer.data();
      p.u.batch.devPtr_offset = static_cast<std::int64_t>(i * options_.io_size);
      p.u.batch.file_offset = static_cast<std::int64_t>(r.offset);
      p.u.batch.size = r.length;
      p.fh = handle(w);
      p.opcode = options_.op == Op::Read ? hipFileBatchRead : hipFileBatchWrite;
      p.cookie = reinterpret_cast<void*>(i);
    }
    hipFileError_t st = hipFileBatchIOSubmit(s.batch, static_cast<unsigned>(n), params.data(), 0);
    if (st.err != hipFileSuccess)
      throw Failure{fmt::format("batch mode: hipFileBatchIOSubmit of {} entries failed: {}", n, status_text(st))};
    std::size_t complete = 0;
    while (complete < n) {
      unsigned nr = static_cast<unsigned>(n - complete);
      timespec timeout{60, 0};
      st = hipFileBatchIOGetStatus(s.batch, nr, &nr, events.data(), &timeout);
      if (st.err != hipFileSuccess)
        throw Failure{fmt::format("batch mode: hipFileBatchIOGetStatus failed: {}", status_text(st))};
      if (nr == 0) throw Failure{"batch mode: no entry completed within 60 s"};
      for (unsigned e = 0; e < nr; ++e) {
        auto i = reinterpret_cast<std::size_t>(events[e].cookie);
        if (i >= n) throw Failure{"batch mode: hipFileBatchIOGetStatus returned an unknown cookie"};
        const Request& r = requests[first + i];
        auto ret = static_cast<ssize_t>(events[e].ret);
        if (events[e].status != hipFileComplete || ret != static_cast<ssize_t>(r.length))
          throw Failure{fmt::format("batch {} of {}: status {}, {}", op_name(options_.op), where(w, r),
                                    static_cast<int>(events[e].status),
                                    ret < 0 ? negative_result_text(ret) : fmt::format("moved {} bytes", ret))};
        after_read(w, i * options_.io_size, r, verify);
        progress_.add(r.length);
      }
      complete += nr;
    }
  }
}

PassTiming HipfileBench::run(bool verify) {
  return run_parallel(workers_, slots_, [&](std::size_t w) {
    switch (options_.api) {
      case Api::Sync: sync_worker(w, verify); break;
      case Api::Async: async_worker(w, verify); break;
      case Api::Batch: batch_worker(w, verify); break;
    }
  });
}

double HipfileBench::run_serial() {
  Stopwatch clock;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    check_hip(hipSetDevice(workers_[w].device), "hipSetDevice");
    for (const Request& r : workers_[w].requests) sync_request(w, 0, r, false);
  }
  return clock.seconds();
}

void HipfileBench::check_written() const {
  std::vector<unsigned char> buf;
  for (std::size_t f = 0; f < files_.size(); ++f) {
    const std::string& path = files_[f].path();
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Failure{fmt::format("open {}: {}", path, std::strerror(errno))};
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (workers_[w].file != f) continue;
      for (const Request& r : workers_[w].requests) {
        buf.resize(r.length);
        ssize_t got = pread(fd, buf.data(), r.length, static_cast<off_t>(r.offset));
        if (got != static_cast<ssize_t>(r.length)) {
          close(fd);
          throw Failure{fmt::format("reading back {}: short read", where(w, r))};
        }
        if (auto bad = check_pattern(buf.data(), r.offset, r.length)) {
          close(fd);
          throw Failure{fmt::format("verification failed: written byte at file offset {} of {} differs", *bad, path)};
        }
      }
    }
    close(fd);
  }
}

}  // namespace hipfile::tools::io
