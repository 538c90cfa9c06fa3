// SPDX-License-Identifier: MIT
// The checkpoint loader from an installed tree (libhipfile-safetensors): write a two-tensor
// checkpoint from device memory, open it, load it back, compare. argv[1]: a scratch file.
// It needs no JSON library: none of the loader's headers includes one.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <hipfile-safetensors/safetensors.hpp>

namespace st = hipfile::safetensors;

namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "consumer_loader: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string path = argv[1];
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) * 0.5f;
  auto buf = hipfile::DeviceBuffer::allocate(in.size() * sizeof(float));
  if (!buf) return fail("allocate");
  if (hipMemcpy(buf->data(), in.data(), buf->size(), hipMemcpyHostToDevice) != hipSuccess) return fail("hipMemcpy");

  const std::vector<st::TensorData> tensors{
      {"weight", st::Dtype::F32, {8, 8}, buf->bytes()},
      {"empty", st::Dtype::BF16, {0}, {}},
  };
  if (auto w = st::write(path, tensors); !w) return fail(w.error().message());
  auto ckpt = st::Checkpoint::open(path);
  if (!ckpt) return fail(ckpt.error().message());
  if (ckpt->tensors().size() != 2 || st::shape_text(ckpt->find("weight")->shape) != "[8, 8]") return fail("header");
  auto gpu = st::load(*ckpt);
  if (!gpu) return fail(gpu.error().message());
  auto weight = gpu->span<float>("weight");
  if (!weight || weight->size() != in.size()) return fail("span<float>");

  std::vector<float> out(in.size());
  if (hipMemcpy(out.data(), weight->data(), weight->size_bytes(), hipMemcpyDeviceToHost) != hipSuccess)
    return fail("hipMemcpy back");
  ::unlink(path.c_str());
  if (out != in) return fail("the loaded tensor differs from the written one");
  std::printf("consumer_loader: safetensors write, open and load OK\n");
  return 0;
}
