// SPDX-License-Identifier: MIT
// Model weights with <hipfile-safetensors/safetensors.hpp> (libhipfile-safetensors): makes a
// small Llama-shaped checkpoint in GPU memory, writes it to PATH, opens it again, loads every
// tensor onto the GPU in one read and checks each one against what was written. Usage: checkpoint_to_gpu PATH
#include <hipfile-safetensors/safetensors.hpp>

#include <hip/hip_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace st = hipfile::safetensors;

namespace {

struct Weight {
  std::string name;
  st::Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::vector<unsigned char> host;  // what was written, for the check
  hipfile::DeviceBuffer gpu;
};

// A tiny transformer: embeddings, 4 layers of attention and MLP weights, norms, the head.
std::vector<Weight> model_shape() {
  const std::uint64_t hidden = 512, mlp = 1408, vocab = 8000;
  std::vector<Weight> w;
  w.push_back({"model.embed_tokens.weight", st::Dtype::BF16, {vocab, hidden}, {}, {}});
  for (int l = 0; l < 4; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* m : {"q_proj", "k_proj", "v_proj", "o_proj"})
      w.push_back({p + "self_attn." + m + ".weight", st::Dtype::BF16, {hidden, hidden}, {}, {}});
    for (const char* m : {"gate_proj", "up_proj"}) w.push_back({p + "mlp." + m + ".weight", st::Dtype::BF16, {mlp, hidden}, {}, {}});
    w.push_back({p + "mlp.down_proj.weight", st::Dtype::BF16, {hidden, mlp}, {}, {}});
    w.push_back({p + "input_layernorm.weight", st::Dtype::F32, {hidden}, {}, {}});
    w.push_back({p + "post_attention_layernorm.weight", st::Dtype::F32, {hidden}, {}, {}});
  }
  w.push_back({"model.norm.weight", st::Dtype::F32, {hidden}, {}, {}});
  w.push_back({"lm_head.weight", st::Dtype::BF16, {vocab, hidden}, {}, {}});
  return w;
}

// Fills each weight with bytes of its own (a stand-in for trained values) on the GPU.
bool fill(std::vector<Weight>& weights) {
  std::uint32_t x = 1;
  for (auto& w : weights) {
    std::uint64_t n = st::dtype_bits(w.dtype) / 8;
    for (auto d : w.shape) n *= d;
    w.host.resize(n);
    for (auto& b : w.host) b = static_cast<unsigned char>((x = x * 1664525u + 1013904223u) >> 24);
    auto gpu = hipfile::DeviceBuffer::allocate(n);
    if (!gpu || hipMemcpy(gpu->data(), w.host.data(), n, hipMemcpyHostToDevice) != hipSuccess) return false;
    w.gpu = std::move(*gpu);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PATH\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  std::vector<Weight> weights = model_shape();
  if (!fill(weights)) return std::fprintf(stderr, "cannot make the weights in GPU memory\n"), 1;

  // 1. Write: tensors straight from GPU memory, through hipFileWrite.
  std::vector<st::TensorData> out;
  for (const auto& w : weights) out.push_back({w.name, w.dtype, w.shape, w.gpu.bytes()});
  st::WriteOptions options;
  options.metadata = {{"format", "pt"}};
  if (auto r = st::write(path, out, options); !r) return std::fprintf(stderr, "%s\n", r.error().message().c_str()), 1;

  // 2. Open: headers only, every rule of the format checked.
  auto ckpt = st::Checkpoint::open(path);
  if (!ckpt) return std::fprintf(stderr, "%s\n", ckpt.error().message().c_str()), 1;
  std::printf("%s: %zu tensors, %llu bytes, format=%s\n", path.c_str(), ckpt->tensors().size(),
              static_cast<unsigned long long>(ckpt->bytes()), ckpt->metadata().at("format").c_str());

  // 3. Load: one allocation and one hipFileRead for the whole file.
  auto gpu = st::load(*ckpt);
  if (!gpu) return std::fprintf(stderr, "%s\n", gpu.error().message().c_str()), 1;
  std::printf("loaded %zu tensors in %llu read(s) into %zu allocation(s)\n", gpu->tensors().size(),
              static_cast<unsigned long long>(gpu->stats().reads), gpu->allocations().size());

  // 4. Typed access, then check every tensor against what was written.
  auto embed = gpu->span<st::bf16>("model.embed_tokens.weight");
  if (!embed) return std::fprintf(stderr, "%s\n", embed.error().message().c_str()), 1;
  std::printf("model.embed_tokens.weight: %zu bf16 values on GPU %d\n", embed->size(),
              gpu->find("model.embed_tokens.weight")->device);
  for (const auto& w : weights) {
    const st::LoadedTensor* t = gpu->find(w.name);
    std::vector<unsigned char> back(w.host.size());
    if (t == nullptr || t->shape != w.shape ||
        hipMemcpy(back.data(), t->data, back.size(), hipMemcpyDeviceToHost) != hipSuccess || back != w.host)
      return std::fprintf(stderr, "%s differs from what was written\n", w.name.c_str()), 1;
  }
  std::printf("every tensor matches what was written\n");
  return 0;
}
