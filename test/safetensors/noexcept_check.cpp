// SPDX-License-Identifier: MIT
// Build-only check: <hipfile-safetensors/safetensors.hpp> compiles with -fno-exceptions and
// strict warnings, and its templates instantiate. Never run.
#include <hipfile-safetensors/safetensors.hpp>

#include <string>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "this file must be compiled with -fno-exceptions"
#endif

namespace sts = hipfile::safetensors;

std::string hipfile_safetensors_noexcept_check(const std::string& path) {
  auto c = sts::Checkpoint::open(path);
  if (!c) return c.error().message();
  sts::LoadOptions o;
  o.names = {"a"};
  o.filter = [](const sts::TensorInfo& t) { return t.bytes() > 0; };
  o.placement = [](const sts::TensorInfo&) { return 0; };
  auto l = sts::load(*c, o);
  if (!l) return l.error().message();
  auto f = l->span<float>("a");
  auto b = l->span<sts::bf16>("b");
  auto w = sts::write(path + ".out", sts::tensors_of(*l));
  auto taken = l->release();
  return std::to_string(f.has_value() + b.has_value() + w.has_value() + taken.size());
}
