// SPDX-License-Identifier: MIT
// fill() into memory the caller owns: whole tensors of every dtype, slices of every dimension
// of 1-D to 4-D tensors (device and host), the checks before anything is read (names, dtype,
// shape, size, slices) leaving every byte as it was, guard bytes around each destination, the
// bytes a slice reads, callbacks, and failures injected into staging and the 2-D copy.
#include "common.hpp"

#include <hipfile++/driver.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#if __has_include(<hip/hip_cpu.h>)
#include <hip/hip_cpu.h>
#endif

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

constexpr std::size_t kGuard = 64;
constexpr std::byte kCanary{0xA5};

/// Device memory of @p bytes between two guards of kGuard canary bytes.
class GuardedDevice {
 public:
  explicit GuardedDevice(std::size_t bytes, int device = 0) : bytes_(bytes) {
    REQUIRE(hipSetDevice(device) == hipSuccess);
    REQUIRE(hipMalloc(&base_, bytes + 2 * kGuard) == hipSuccess);
    const std::vector<std::byte> fill(bytes + 2 * kGuard, kCanary);
    REQUIRE(hipMemcpy(base_, fill.data(), fill.size(), hipMemcpyHostToDevice) == hipSuccess);
    REQUIRE(hipSetDevice(0) == hipSuccess);
  }
  ~GuardedDevice() { (void)hipFree(base_); }
  GuardedDevice(const GuardedDevice&) = delete;
  GuardedDevice& operator=(const GuardedDevice&) = delete;

  void* data() const { return static_cast<std::byte*>(base_) + kGuard; }
  std::size_t bytes() const { return bytes_; }
  std::vector<std::byte> all() const {
    std::vector<std::byte> out(bytes_ + 2 * kGuard);
    REQUIRE(hipMemcpy(out.data(), base_, out.size(), hipMemcpyDeviceToHost) == hipSuccess);
    return out;
  }
  /// The destination's bytes, after checking that both guards are intact.
  std::vector<std::byte> contents() const {
    auto a = all();
    CHECK(std::all_of(a.begin(), a.begin() + kGuard, [](std::byte b) { return b == kCanary; }));
    CHECK(std::all_of(a.end() - kGuard, a.end(), [](std::byte b) { return b == kCanary; }));
    return {a.begin() + kGuard, a.end() - kGuard};
  }

 private:
  void* base_ = nullptr;
  std::size_t bytes_;
};

/// The slice [start, stop) of dimension dim of a row-major tensor's bytes, computed on the host.
std::vector<std::byte> host_slice(const std::vector<std::byte>& all, const std::vector<std::uint64_t>& shape,
                                  std::size_t esize, const sts::Slice& s) {
  std::uint64_t outer = 1, inner = esize;
  for (std::size_t d = 0; d < s.dim; ++d) outer *= shape[d];
  for (std::size_t d = s.dim + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<std::byte> out;
  for (std::uint64_t o = 0; o < outer; ++o) {
    const auto* row = all.data() + o * shape[s.dim] * inner;
    out.insert(out.end(), row + s.start * inner, row + s.stop * inner);
  }
  return out;
}

sts::Destination dest(const std::string& name, void* data, std::size_t bytes) {
  sts::Destination d;
  d.name = name;
  d.data = data;
  d.bytes = bytes;
  return d;
}

}  // namespace

TEST_CASE("slice geometry: rows, width and pitch of each dimension, and its refusals") {
  sts::TensorInfo t;
  t.name = "w";
  t.dtype = Dtype::F32;
  t.shape = {3, 5, 7};
  t.file_offset = 100;
  t.end = 3 * 5 * 7 * 4;
  auto first = sts::slice_geometry(t, {0, 1, 3});
  REQUIRE(first);
  CHECK(first->shape == std::vector<std::uint64_t>{2, 5, 7});
  CHECK(first->rows == 1);
  CHECK(first->width == 2 * 35 * 4);
  CHECK(first->file_offset == 100 + 35 * 4);
  CHECK(first->contiguous());
  auto middle = sts::slice_geometry(t, {1, 2, 4});
  REQUIRE(middle);
  CHECK(middle->rows == 3);
  CHECK(middle->width == 2 * 7 * 4);
  CHECK(middle->pitch == 5 * 7 * 4);
  CHECK(middle->file_offset == 100 + 2 * 7 * 4);
  CHECK_FALSE(middle->contiguous());
  auto empty = sts::slice_geometry(t, {2, 4, 4});
  REQUIRE(empty);
  CHECK(empty->bytes() == 0);
  CHECK(empty->shape == std::vector<std::uint64_t>{3, 5, 0});

  auto past = sts::slice_geometry(t, {1, 2, 6});
  REQUIRE_FALSE(past);
  CHECK(past.error().code() == Errc::invalid_slice);
  CHECK(past.error().message() == "tensor 'w': slice 2:6 of dimension 1, which is 5 long (shape [3, 5, 7])");
  auto backwards = sts::slice_geometry(t, {0, 2, 1});
  REQUIRE_FALSE(backwards);
  CHECK(backwards.error().code() == Errc::invalid_slice);
  auto no_dim = sts::slice_geometry(t, {3, 0, 1});
  REQUIRE_FALSE(no_dim);
  CHECK(no_dim.error().message() == "tensor 'w': dimension 3 of a tensor of shape [3, 5, 7]");
  t.dtype = Dtype::F4;
  t.shape = {4, 8};
  auto packed = sts::slice_geometry(t, {0, 0, 2});
  REQUIRE_FALSE(packed);
  CHECK(packed.error().message() == "tensor 'w': a slice of F4 elements, which are packed below a byte");
}

TEST_CASE("rank shares cover a dimension once, in order; each layout splits its dimension") {
  for (std::uint64_t length : {0u, 1u, 7u, 8u, 4099u}) {
    for (unsigned world : {1u, 2u, 3u, 4u, 8u}) {
      std::uint64_t next = 0;
      for (unsigned rank = 0; rank < world; ++rank) {
        auto s = sts::rank_share(2, length, rank, world);
        REQUIRE(s);
        CHECK(s->dim == 2);
        CHECK(s->start == next);
        CHECK(s->stop - s->start <= (length + world - 1) / world);
        next = s->stop;
      }
      CHECK(next == length);
    }
  }
  // Lengths above 2^63: share * rank and start + share would pass 2^64 (they wrapped once).
  for (unsigned world : {2u, 3u, 64u, 4000000000u}) {
    __extension__ typedef unsigned __int128 U128;  // room for share * rank
    const std::uint64_t share = UINT64_MAX / world + (UINT64_MAX % world != 0);
    for (unsigned rank : {0u, 1u, world / 2, world - 1}) {
      auto s = sts::rank_share(0, UINT64_MAX, rank, world);
      REQUIRE(s);
      const U128 start = std::min<U128>(UINT64_MAX, U128{share} * rank);
      CHECK(U128{s->start} == start);
      CHECK(U128{s->stop} == std::min<U128>(UINT64_MAX, start + share));
    }
  }
  auto high = sts::rank_share(0, UINT64_MAX, 1, 2);
  REQUIRE(high);
  CHECK((high->start == 1ull << 63 && high->stop == UINT64_MAX));
  auto last = sts::tensor_parallel_slice({UINT64_MAX, 1}, sts::Parallel::column, 2, 3);
  REQUIRE(last);
  CHECK((last->start == 2 * (UINT64_MAX / 3) && last->stop == UINT64_MAX));
  auto bad = sts::rank_share(0, 8, 2, 2);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code() == Errc::invalid_argument);
  CHECK(bad.error().message() == "rank 2 of a world of 2");
  CHECK_FALSE(sts::rank_share(0, 8, 0, 0));

  using P = sts::Parallel;
  const std::vector<std::uint64_t> w = {12, 20};
  auto col = sts::tensor_parallel_slice(w, P::column, 1, 4);
  REQUIRE(col);
  CHECK((col->dim == 0 && col->start == 3 && col->stop == 6));
  auto row = sts::tensor_parallel_slice(w, P::row, 3, 4);
  REQUIRE(row);
  CHECK((row->dim == 1 && row->start == 15 && row->stop == 20));
  auto vocab = sts::tensor_parallel_slice({32001, 16}, P::vocabulary, 1, 2);
  REQUIRE(vocab);
  CHECK((vocab->dim == 0 && vocab->start == 16001 && vocab->stop == 32001));
  auto bias = sts::tensor_parallel_slice({20}, P::row, 1, 4);  // a row-parallel layer's bias is whole
  REQUIRE(bias);
  CHECK((bias->dim == 0 && bias->start == 0 && bias->stop == 20));
  auto rep = sts::tensor_parallel_slice(w, P::replicated, 1, 4);
  REQUIRE(rep);
  CHECK((rep->start == 0 && rep->stop == 12));
  CHECK_FALSE(sts::tensor_parallel_slice(w, P::replicated, 4, 4));
  auto scalar = sts::tensor_parallel_slice({}, P::column, 0, 2);
  REQUIRE_FALSE(scalar);
  CHECK(scalar.error().code() == Errc::invalid_slice);
}

TEST_CASE("every dtype fills whole into device and host memory, guards intact") {
  TempDir dir;
  const std::string path = dir / "all.safetensors";
  std::vector<Spec> specs;
  for (std::size_t i = 0; i < sts::kDtypeCount; ++i) {
    const Dtype d = sts::dtype_at(i);
    specs.push_back({"t." + std::string(sts::dtype_name(d)), d, {sts::dtype_bits(d) % 8 ? 8u : 5 + i, 3}});
  }
  specs.push_back({"empty", Dtype::F32, {0, 3}});
  specs.push_back({"big", Dtype::U8, {(3u << 20) + 5}});  // pieces and several threads
  const Made made = make_checkpoint(path, specs, 3);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  std::vector<std::unique_ptr<GuardedDevice>> device;
  std::vector<std::vector<std::byte>> host;
  std::vector<sts::Destination> dests;
  for (const auto& s : specs) {
    const std::size_t n = spec_bytes(s);
    if (dests.size() % 2 == 0) {
      device.push_back(std::make_unique<GuardedDevice>(n));
      dests.push_back(dest(s.name, device.back()->data(), n));
    } else {
      host.emplace_back(n + 2 * kGuard, kCanary);
      dests.push_back(dest(s.name, host.back().data() + kGuard, n));
    }
    dests.back().dtype = s.dtype;
    dests.back().shape = s.shape;
  }
  std::vector<std::size_t> filled;
  sts::FillOptions o;
  o.on_filled = [&](std::size_t i) { filled.push_back(i); };
  auto r = sts::fill(*c, dests, o);
  REQUIRE(r);
  CHECK(r->missing.empty());
  CHECK(r->unexpected.empty());
  CHECK(r->stats.bytes_read == c->bytes());
  CHECK(r->stats.reads >= specs.size() - 1);
  std::uint64_t on_device = 0, on_host = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) (i % 2 == 0 ? on_device : on_host) += spec_bytes(specs[i]);
  CHECK(r->device_bytes == std::map<int, std::uint64_t>{{-1, on_host}, {0, on_device}});
  // Whole tensors go through the library: device memory on the engine, host memory directly.
  CHECK(r->stats.path_bytes[static_cast<int>(hipfile::stats::Path::engine)] == on_device);
  CHECK(r->stats.path_bytes[static_cast<int>(hipfile::stats::Path::host)] == on_host);
  CHECK(r->stats.gb_per_s() > 0);  // the empty tensor needs no read
  std::sort(filled.begin(), filled.end());
  CHECK(filled.size() == dests.size());
  CHECK(std::adjacent_find(filled.begin(), filled.end()) == filled.end());
  std::size_t d = 0, h = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    INFO(specs[i].name);
    if (i % 2 == 0) {
      CHECK(device[d++]->contents() == made.at(specs[i].name));
    } else {
      const auto& b = host[h++];
      CHECK(std::vector<std::byte>(b.begin() + kGuard, b.end() - kGuard) == made.at(specs[i].name));
      CHECK(std::all_of(b.begin(), b.begin() + kGuard, [](std::byte x) { return x == kCanary; }));
      CHECK(std::all_of(b.end() - kGuard, b.end(), [](std::byte x) { return x == kCanary; }));
    }
  }
}

TEST_CASE("slices of every dimension of 1-D to 4-D tensors, empty and whole, device and host") {
  TempDir dir;
  const std::string path = dir / "s.safetensors";
  const std::vector<Spec> specs = {{"a", Dtype::F32, {11}},
                                   {"b", Dtype::BF16, {5, 7}},
                                   {"c", Dtype::I8, {3, 5, 9}},
                                   {"d", Dtype::F64, {2, 3, 5, 7}},
                                   {"wide", Dtype::U8, {3, (9u << 20) + 1}}};  // one row past the staging
  const Made made = make_checkpoint(path, specs, 5);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  for (const Spec& s : specs) {
    const std::size_t esize = sts::dtype_bits(s.dtype) / 8;
    for (std::size_t dim = 0; dim < s.shape.size(); ++dim) {
      const std::uint64_t n = s.shape[dim];
      for (auto [start, stop] : {std::pair<std::uint64_t, std::uint64_t>{1, n - 1}, {0, n}, {n / 2, n / 2}, {n - 1, n}}) {
        for (bool on_device : {true, false}) {
          const sts::Slice slice{dim, start, stop};
          const auto want = host_slice(made.at(s.name), s.shape, esize, slice);
          INFO(s.name << " dim " << dim << " " << start << ":" << stop << (on_device ? " device" : " host"));
          std::vector<std::uint64_t> shape = s.shape;
          shape[dim] = stop - start;
          GuardedDevice dev(want.size());
          std::vector<std::byte> host(want.size() + 2 * kGuard, kCanary);
          sts::Destination d = dest(s.name, on_device ? dev.data() : host.data() + kGuard, want.size());
          d.slice = slice;
          d.shape = shape;
          sts::FillOptions o;
          o.allow_unexpected = true;
          auto r = sts::fill(*c, {&d, 1}, o);
          REQUIRE(r);
          CHECK(r->unexpected.size() == specs.size() - 1);
          if (on_device) {
            CHECK(dev.contents() == want);
          } else {
            CHECK(std::vector<std::byte>(host.begin() + kGuard, host.end() - kGuard) == want);
            CHECK(std::all_of(host.begin(), host.begin() + kGuard, [](std::byte x) { return x == kCanary; }));
            CHECK(std::all_of(host.end() - kGuard, host.end(), [](std::byte x) { return x == kCanary; }));
          }
          // Never more than the rows that hold the slice: first row's start to last row's end.
          std::uint64_t outer = 1, inner = esize;
          for (std::size_t k = 0; k < dim; ++k) outer *= s.shape[k];
          for (std::size_t k = dim + 1; k < s.shape.size(); ++k) inner *= s.shape[k];
          const std::uint64_t span = want.empty() ? 0 : (outer - 1) * n * inner + (stop - start) * inner;
          CHECK(r->stats.bytes_read <= span);  // less where rows too long for staging are read one by one
          CHECK(r->stats.bytes_read >= want.size());
          if (span <= (8u << 20)) CHECK(r->stats.bytes_read == span);
          // Rows longer than the staging are read one by one: each row's slice alone.
          if (on_device && stop - start == n - 2 && (stop - start) * inner > (8u << 20))
            CHECK(r->stats.bytes_read == want.size());
        }
      }
    }
  }
}

TEST_CASE("tensor-parallel ranks each read their slice of a row-parallel weight and no more than its rows") {
  TempDir dir;
  const std::string path = dir / "tp.safetensors";
  const Spec w{"o_proj.weight", Dtype::BF16, {64, 96}};
  const Made made = make_checkpoint(path, {w}, 9);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  for (unsigned world : {2u, 3u, 4u}) {
    for (unsigned rank = 0; rank < world; ++rank) {
      auto s = sts::tensor_parallel_slice(w.shape, sts::Parallel::row, rank, world);
      REQUIRE(s);
      const auto want = host_slice(made.at(w.name), w.shape, 2, *s);
      GuardedDevice dev(want.size());
      sts::Destination d = dest(w.name, dev.data(), want.size());
      d.slice = *s;
      auto r = sts::fill(*c, {&d, 1});
      REQUIRE(r);
      CHECK(dev.contents() == want);
      // Its share, plus the rest of the rows it spans (row granularity).
      CHECK(r->stats.bytes_read <= want.size() + (w.shape[1] - (s->stop - s->start)) * 2 * (w.shape[0] - 1));
      CHECK((r->stats.bytes_read < spec_bytes(w) || world == 1));
    }
  }
}

TEST_CASE("every refusal comes before any byte is written and names the tensor and both sides") {
  TempDir dir;
  const std::string path = dir / "r.safetensors";
  make_checkpoint(path, {{"w", Dtype::F32, {4, 6}}, {"b", Dtype::F32, {6}}});
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  GuardedDevice w(96), b(24);
  const auto w_before = w.all(), b_before = b.all();
  auto refused = [&](std::vector<sts::Destination> dests, Errc code, const std::string& message,
                     sts::FillOptions o = {}) {
    auto r = sts::fill(*c, dests, o);
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == code);
    CHECK(r.error().message() == message);
    CHECK(w.all() == w_before);
    CHECK(b.all() == b_before);
  };
  auto ok_b = dest("b", b.data(), 24);
  auto wrong_size = dest("w", w.data(), 92);
  refused({ok_b, wrong_size}, Errc::shape_mismatch,
          path + ": tensor 'w': the destination holds 92 bytes; the tensor [4, 6] is 96 bytes");
  auto wrong_dtype = dest("w", w.data(), 96);
  wrong_dtype.dtype = Dtype::BF16;
  refused({ok_b, wrong_dtype}, Errc::dtype_mismatch, path + ": tensor 'w': the destination is BF16; the tensor is F32");
  auto wrong_shape = dest("w", w.data(), 96);
  wrong_shape.shape = std::vector<std::uint64_t>{6, 4};
  refused({ok_b, wrong_shape}, Errc::shape_mismatch,
          path + ": tensor 'w': the destination's shape is [6, 4]; the tensor is [4, 6]");
  auto sliced = dest("w", w.data(), 96);
  sliced.slice = sts::Slice{1, 0, 3};
  refused({ok_b, sliced}, Errc::shape_mismatch,
          path + ": tensor 'w': the destination holds 96 bytes; the slice [4, 3] is 48 bytes");
  auto past = dest("w", w.data(), 96);
  past.slice = sts::Slice{1, 5, 7};
  refused({ok_b, past}, Errc::invalid_slice,
          path + ": tensor 'w': slice 5:7 of dimension 1, which is 6 long (shape [4, 6])");
  refused({ok_b, dest("w", nullptr, 96)}, Errc::invalid_argument, path + ": tensor 'w': the destination's address is null");
  refused({ok_b}, Errc::unexpected_tensor, path + ": tensor 'w': no destination takes this tensor");
  refused({ok_b, dest("w", w.data(), 96), dest("x", w.data(), 4)}, Errc::no_such_tensor,
          path + ": tensor 'x': is not in the checkpoint");
  refused({ok_b, ok_b}, Errc::invalid_argument, path + ": tensor 'b': two destinations name this tensor");
  sts::FillOptions zero;
  zero.parallel_reads = 0;
  refused({ok_b, dest("w", w.data(), 96)}, Errc::invalid_argument, "parallel_reads 0 is not between 1 and 64", zero);

  sts::FillOptions lenient;
  lenient.allow_missing = true;
  lenient.allow_unexpected = true;
  auto r = sts::fill(*c, std::vector<sts::Destination>{dest("x", w.data(), 4), ok_b}, lenient);
  REQUIRE(r);
  CHECK(r->missing == std::vector<std::string>{"x"});
  CHECK(r->unexpected == std::vector<std::string>{"w"});
  CHECK(w.all() == w_before);  // x named no tensor: nothing went to its memory
}

TEST_CASE("progress rises to the total; a file that shrank after open is refused") {
  TempDir dir;
  const std::string path = dir / "p.safetensors";
  const Made made = make_checkpoint(path, {{"a", Dtype::U8, {(2u << 20) + 1}}, {"b", Dtype::U8, {7, 300}}}, 4);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  GuardedDevice a((2u << 20) + 1), b(7 * 100);
  std::vector<sts::Destination> dests = {dest("a", a.data(), a.bytes()), dest("b", b.data(), b.bytes())};
  dests[1].slice = sts::Slice{1, 100, 200};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
  sts::FillOptions o;
  o.progress = [&](std::uint64_t done, std::uint64_t total) { seen.emplace_back(done, total); };
  auto r = sts::fill(*c, dests, o);
  REQUIRE(r);
  REQUIRE_FALSE(seen.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].first > seen[i - 1].first);
  CHECK(seen.back().first == seen.back().second);
  CHECK(seen.back().second == r->stats.bytes_read);
  CHECK(a.contents() == made.at("a"));

  const std::uint64_t size = c->shards()[0].size;
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size - 1)) == 0);
  auto shrunk = sts::fill(*c, dests);
  REQUIRE_FALSE(shrunk);
  CHECK(shrunk.error().code() == Errc::shard_changed);
}

TEST_CASE("a slice goes to the device that holds its destination; the caller's device stays current") {
  int count = 0;
  REQUIRE(hipGetDeviceCount(&count) == hipSuccess);
  if (count < 2) HIPFILE_SKIP("needs two devices");
  TempDir dir;
  const std::string path = dir / "two.safetensors";
  const Spec w{"w", Dtype::I16, {9, 14}};
  const Made made = make_checkpoint(path, {w}, 12);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const sts::Slice slice{1, 3, 11};
  const auto want = host_slice(made.at("w"), w.shape, 2, slice);
  GuardedDevice on_one(want.size(), 1);
  sts::Destination d = dest("w", on_one.data(), want.size());
  d.slice = slice;
  REQUIRE(hipSetDevice(0) == hipSuccess);
  auto r = sts::fill(*c, {&d, 1});
  REQUIRE(r);
  CHECK(on_one.contents() == want);
  CHECK(r->device_bytes == std::map<int, std::uint64_t>{{1, want.size()}});
  int current = -1;
  REQUIRE(hipGetDevice(&current) == hipSuccess);
  CHECK(current == 0);
}

namespace {
void sleep_50ms(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }
}  // namespace

TEST_CASE("a slice's copy lands after the NULL stream's held work and before later work, beside frees") {
  TempDir dir;
  const std::string path = dir / "h.safetensors";
  const Spec w{"w", Dtype::F32, {64, 1000}};
  const Made made = make_checkpoint(path, {w}, 9);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const sts::Slice slice{1, 100, 900};
  const auto want = host_slice(made.at("w"), w.shape, 4, slice);
  GuardedDevice dev(want.size());
  // Earlier work: the NULL stream sleeps in a host function, then overwrites the destination.
  REQUIRE(launch_host_func(nullptr, sleep_50ms, nullptr) == hipSuccess);
  REQUIRE(hipMemsetAsync(dev.data(), 0xEE, want.size(), nullptr) == hipSuccess);
  std::atomic<bool> stop{false};
  std::thread freer([&] {  // frees device and pinned memory while the fill runs
    while (!stop.load()) {
      void* d = nullptr;
      void* h = nullptr;
      if (hipMalloc(&d, 1 << 20) == hipSuccess) (void)hipFree(d);
      if (hipHostMalloc(&h, 1 << 20, 0) == hipSuccess) (void)hipHostFree(h);
    }
  });
  sts::Destination d = dest("w", dev.data(), want.size());
  d.slice = slice;
  auto r = sts::fill(*c, {&d, 1});
  // Later work: the fill has returned, so what follows on the NULL stream comes after it.
  REQUIRE(hipMemsetAsync(dev.data(), 0x11, 4, nullptr) == hipSuccess);
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  stop = true;
  freer.join();
  REQUIRE(r);
  auto expected = want;
  std::memset(expected.data(), 0x11, 4);
  CHECK(dev.contents() == expected);
}

// Signal memory and 64-bit stream waits: hip-cpu and ROCm have them, hip-cuda does not.
#if !defined(__HIP_PLATFORM_NVIDIA__)
TEST_CASE("a slice's copy waits for work the NULL stream still has on its destination") {
  int can_wait = 0;
  if (hipDeviceGetAttribute(&can_wait, hipDeviceAttributeCanUseStreamWaitValue, 0) != hipSuccess || can_wait != 1)
    HIPFILE_SKIP("the device cannot wait on stream values");
  TempDir dir;
  const std::string path = dir / "o.safetensors";
  const Spec w{"w", Dtype::F32, {6, 10}};
  const Made made = make_checkpoint(path, {w}, 8);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  const sts::Slice slice{1, 2, 7};
  const auto want = host_slice(made.at("w"), w.shape, 4, slice);
  GuardedDevice dev(want.size());
  std::uint64_t* signal = nullptr;
  REQUIRE(hipExtMallocWithFlags(reinterpret_cast<void**>(&signal), 8, hipMallocSignalMemory) == hipSuccess);
  hipStream_t releaser = nullptr;
  REQUIRE(hipStreamCreateWithFlags(&releaser, hipStreamNonBlocking) == hipSuccess);
  // The NULL stream holds, then overwrites the destination: a kernel the application queued.
  REQUIRE(hipStreamWaitValue64(nullptr, signal, 1, hipStreamWaitValueEq) == hipSuccess);
  REQUIRE(hipMemsetAsync(dev.data(), 0xEE, want.size(), nullptr) == hipSuccess);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (void)hipStreamWriteValue64(releaser, signal, 1, 0);
  });
  sts::Destination d = dest("w", dev.data(), want.size());
  d.slice = slice;
  auto r = sts::fill(*c, {&d, 1});
  release.join();
  REQUIRE(r);
  CHECK(dev.contents() == want);  // the slice landed after the memset, not under it
  REQUIRE(hipDeviceSynchronize() == hipSuccess);
  (void)hipStreamDestroy(releaser);
  (void)hipFree(signal);
}
#endif

#if __has_include(<hip/hip_cpu.h>)
TEST_CASE("a failing pinned staging or 2-D copy is a device_error naming the tensor") {
  TempDir dir;
  const std::string path = dir / "f.safetensors";
  // "long": rows of 12 MiB, so its slice needs staging larger than any kept between fills.
  make_checkpoint(path, {{"w", Dtype::F32, {8, 16}}, {"long", Dtype::F32, {2, 3u << 20}}});
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  GuardedDevice w(8 * 4 * 4), wide(2 * (10u << 20));
  sts::Destination d = dest("w", w.data(), w.bytes());
  d.slice = sts::Slice{1, 4, 8};
  sts::Destination long_rows = dest("long", wide.data(), wide.bytes());
  long_rows.slice = sts::Slice{1, 0, 10u << 18};
  sts::FillOptions o;
  o.allow_unexpected = true;
  REQUIRE(sts::fill(*c, {&d, 1}, o));  // the library's own pinned memory is made by now
  const std::size_t live = hipcpuLiveHostAllocations();
  for (auto [api, dst] : {std::pair{"hipHostMalloc", &long_rows}, std::pair{"hipMemcpy2DAsync", &d}}) {
    INFO(api);
    hipcpuInjectFault(api, 1, 1, hipErrorOutOfMemory);
    auto r = sts::fill(*c, {dst, 1}, o);
    hipcpuClearFaults();
    REQUIRE_FALSE(r);
    CHECK(r.error().code() == Errc::device_error);
    CHECK(r.error().tensor() == dst->name);
    CHECK(r.error().cause().hip() == hipErrorOutOfMemory);
  }
  CHECK(hipcpuLiveHostAllocations() == live);
  auto r = sts::fill(*c, {&d, 1}, o);  // nothing left behind that a later fill trips on
  REQUIRE(r);
}

TEST_CASE("pinned staging is kept from one fill to the next, not made again") {
  TempDir dir;
  const std::string path = dir / "k.safetensors";
  const Spec w{"w", Dtype::BF16, {32, 48}};
  const Made made = make_checkpoint(path, {w}, 14);
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  GuardedDevice out(32 * 16 * 2);
  sts::Destination d = dest("w", out.data(), out.bytes());
  d.slice = sts::Slice{1, 16, 32};
  REQUIRE(sts::fill(*c, {&d, 1}));
  hipcpuResetCallCounts();
  for (int i = 0; i < 5; ++i) REQUIRE(sts::fill(*c, {&d, 1}));
  CHECK(hipcpuCallCount("hipHostMalloc") == 0);
  CHECK(out.contents() == host_slice(made.at("w"), w.shape, 2, *d.slice));
}
#endif
