// SPDX-License-Identifier: MIT
// One rank's weights for tensor-parallel serving, with <hipfile-safetensors/safetensors.hpp>:
// writes a small Llama-shaped checkpoint to PATH, opens it, works out rank RANK's share of every
// linear layer and embedding of a WORLD_SIZE-way group (tensor_parallel_slice), reads those
// slices straight into device buffers the program allocated itself (fill), then streams the
// tensors every rank holds whole (the norms) one at a time (TensorStream). Each slice and tensor
// is checked against the same slice of what was written, cut on the host.
// Usage: slice_to_gpu PATH [RANK WORLD_SIZE] (default rank 1 of 2)
#include <hipfile-safetensors/safetensors.hpp>

#include <hip/hip_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace st = hipfile::safetensors;

namespace {

struct Weight {
  std::string name;
  st::Dtype dtype;
  std::vector<std::uint64_t> shape;
  st::Parallel layout;              // how a tensor-parallel group splits it
  std::vector<unsigned char> host;  // what was written, for the check
};

// Megatron-LM's split of a Llama block: q/k/v and gate/up split their outputs (column),
// o and down their inputs (row), the embedding and head their vocabulary rows; norms whole.
std::vector<Weight> model_shape() {
  const std::uint64_t hidden = 256, mlp = 688, vocab = 3000;
  std::vector<Weight> w{{"model.embed_tokens.weight", st::Dtype::BF16, {vocab, hidden}, st::Parallel::vocabulary, {}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* m : {"q_proj", "k_proj", "v_proj"})
      w.push_back({p + "self_attn." + m + ".weight", st::Dtype::BF16, {hidden, hidden}, st::Parallel::column, {}});
    w.push_back({p + "self_attn.o_proj.weight", st::Dtype::BF16, {hidden, hidden}, st::Parallel::row, {}});
    for (const char* m : {"gate_proj", "up_proj"})
      w.push_back({p + "mlp." + m + ".weight", st::Dtype::BF16, {mlp, hidden}, st::Parallel::column, {}});
    w.push_back({p + "mlp.down_proj.weight", st::Dtype::BF16, {hidden, mlp}, st::Parallel::row, {}});
    w.push_back({p + "input_layernorm.weight", st::Dtype::F32, {hidden}, st::Parallel::replicated, {}});
  }
  w.push_back({"model.norm.weight", st::Dtype::F32, {hidden}, st::Parallel::replicated, {}});
  w.push_back({"lm_head.weight", st::Dtype::BF16, {vocab, hidden}, st::Parallel::vocabulary, {}});
  std::uint32_t x = 7;  // bytes of its own for every weight (a stand-in for trained values)
  for (auto& t : w) {
    std::uint64_t n = st::dtype_bits(t.dtype) / 8;
    for (auto d : t.shape) n *= d;
    t.host.resize(n);
    for (auto& b : t.host) b = static_cast<unsigned char>((x = x * 1664525u + 1013904223u) >> 24);
  }
  return w;
}

// The bytes of slice @p s of @p w, cut on the host: for every index of the dimensions before
// s.dim, the run of s.stop - s.start elements (each `inner` bytes) that the slice keeps.
std::vector<unsigned char> host_slice(const Weight& w, const st::Slice& s) {
  std::uint64_t outer = 1, inner = st::dtype_bits(w.dtype) / 8;
  for (std::size_t d = 0; d < s.dim; ++d) outer *= w.shape[d];
  for (std::size_t d = s.dim + 1; d < w.shape.size(); ++d) inner *= w.shape[d];
  std::vector<unsigned char> out;
  for (std::uint64_t o = 0; o < outer; ++o) {
    const auto* row = w.host.data() + (o * w.shape[s.dim] + s.start) * inner;
    out.insert(out.end(), row, row + (s.stop - s.start) * inner);
  }
  return out;
}

bool same_on_gpu(const void* gpu, const std::vector<unsigned char>& want) {
  std::vector<unsigned char> back(want.size());
  return hipMemcpy(back.data(), gpu, back.size(), hipMemcpyDeviceToHost) == hipSuccess && back == want;
}

int fail(const st::Error& e) { return std::fprintf(stderr, "%s\n", e.message().c_str()), 1; }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) return std::fprintf(stderr, "usage: %s PATH [RANK WORLD_SIZE]\n", argv[0]), 2;
  const unsigned rank = argc == 4 ? static_cast<unsigned>(std::atoi(argv[2])) : 1;
  const unsigned world = argc == 4 ? static_cast<unsigned>(std::atoi(argv[3])) : 2;
  const std::vector<Weight> weights = model_shape();
  std::vector<st::TensorData> out;
  for (const auto& w : weights) out.push_back({w.name, w.dtype, w.shape, std::as_bytes(std::span(w.host))});
  if (auto r = st::write(argv[1], out); !r) return fail(r.error());
  auto ckpt = st::Checkpoint::open(argv[1]);
  if (!ckpt) return fail(ckpt.error());

  // 1. Rank's slices of the split layers, into buffers this program owns (an engine's, a
  //    model's parameters): fill() checks every name, slice and size before reading anything.
  std::vector<st::Destination> slices;
  std::map<std::string, hipfile::DeviceBuffer> mine;
  std::map<std::string, st::Slice> slice_of;
  for (const auto& w : weights) {
    if (w.layout == st::Parallel::replicated) continue;
    auto s = st::tensor_parallel_slice(w.shape, w.layout, rank, world);
    if (!s) return fail(s.error());
    auto g = st::slice_geometry(*ckpt->find(w.name), *s);  // the slice's shape and bytes
    if (!g) return fail(g.error());
    auto buffer = hipfile::DeviceBuffer::allocate(g->bytes());
    if (!buffer) return std::fprintf(stderr, "hipMalloc: %s\n", buffer.error().message().c_str()), 1;
    slices.push_back({w.name, buffer->data(), g->bytes(), *s, w.dtype, g->shape});
    mine.emplace(w.name, std::move(*buffer));
    slice_of.emplace(w.name, *s);
  }
  st::FillOptions options;
  options.allow_unexpected = true;  // the replicated tensors: streamed below
  auto filled = st::fill(*ckpt, slices, options);
  if (!filled) return fail(filled.error());
  std::printf("rank %u of %u: %zu slices, %llu bytes read of the file's %llu, in %llu reads\n", rank, world,
              slices.size(), static_cast<unsigned long long>(filled->stats.bytes_read),
              static_cast<unsigned long long>(ckpt->bytes()), static_cast<unsigned long long>(filled->stats.reads));

  // 2. The rest, whole on every rank, one tensor at a time in file order within a small budget.
  std::size_t streamed = 0;
  st::StreamOptions so;
  so.filter = [&](const st::TensorInfo& t) { return slice_of.count(t.name) == 0; };
  so.budget = 64 << 10;
  std::map<std::string, st::StreamedTensor> whole;
  auto stats = st::stream(*ckpt, so, [&](st::StreamedTensor&& t) {
    ++streamed;
    whole.emplace(t.tensor.name, std::move(t));  // a real program hands it to its layer here
    return true;
  });
  if (!stats) return fail(stats.error());
  std::printf("streamed %zu replicated tensors\n", streamed);

  // 3. Every slice and tensor against what was written.
  for (const auto& w : weights) {
    const auto s = slice_of.find(w.name);
    const bool ok = s != slice_of.end() ? same_on_gpu(mine.at(w.name).data(), host_slice(w, s->second))
                                        : whole.count(w.name) && same_on_gpu(whole.at(w.name).memory.data(), w.host);
    if (!ok) return std::fprintf(stderr, "%s differs from what was written\n", w.name.c_str()), 1;
  }
  std::printf("every slice and tensor matches what was written\n");
  return 0;
}
