// SPDX-License-Identifier: MIT
// libFuzzer target for the path Python's hipfile.safetensors.load takes
// (python/src/safetensors.cpp): Checkpoint::open of a .safetensors file made from the input,
// then load() onto hip-cpu device 0. The first input byte picks how the file is made: odd, the
// rest verbatim (the length prefix fuzzed too); even, framed from the rest split at its first
// NUL into header text and data (st_fuzz.hpp). A checkpoint that opens must load (nothing
// changes the file in between), and every loaded tensor must hold exactly the file's bytes; so
// must a fill() of a slice of each tensor into guarded host memory, which nothing past must touch.
#include <hip/hip_runtime_api.h>
#include <hipfile++/hipfile.hpp>

#include "st_fuzz.hpp"

namespace {

namespace st = fuzz::st;

struct World {
  hipfile::Driver driver;
  std::string path;
};

const World& world() {
  static World* w = [] {
    auto driver = hipfile::Driver::open();
    if (!driver) fuzz::broken("hipfile::Driver::open: " + driver.error().message());
    // Never destroyed: libFuzzer may exit from any thread, and the runtime outlives the run.
    return new World{std::move(*driver), fuzz::private_dir("load-fuzz") + "/fuzz.safetensors"};
  }();
  return *w;
}

void check_tensor(const st::LoadedTensor& l, const st::Checkpoint& c, std::string_view file) {
  const st::TensorInfo* t = c.find(l.name);
  fuzz::require(t != nullptr, "loaded tensor '" + l.name + "' is not in the checkpoint");
  fuzz::require(l.dtype == t->dtype && l.shape == t->shape && l.bytes == t->bytes() && l.device == 0,
                "loaded tensor '" + l.name + "' is described otherwise than in the header");
  fuzz::require((l.data == nullptr) == (l.bytes == 0), "tensor '" + l.name + "': data is null exactly when empty");
  if (l.bytes == 0) return;
  fuzz::require(t->file_offset + l.bytes <= file.size(), "tensor '" + l.name + "' lies past the end of the file");
  std::string host(l.bytes, '\0');
  fuzz::require(hipMemcpy(host.data(), l.data, l.bytes, hipMemcpyDeviceToHost) == hipSuccess, "hipMemcpy");
  fuzz::require(host == file.substr(t->file_offset, l.bytes), "tensor '" + l.name + "' holds other bytes than the file");
}

/// The slice fill() is asked for: a middle third of one dimension picked from the name.
st::Slice slice_of(const st::TensorInfo& t) {
  const std::size_t dim = std::hash<std::string>{}(t.name) % t.shape.size();
  const std::uint64_t n = t.shape[dim];
  return st::Slice{dim, n / 3, n - n / 3};
}

/// The slice's bytes, taken from the file on the host row by row.
std::string host_slice(const st::TensorInfo& t, const st::SliceGeometry& g, std::string_view file) {
  std::string out;
  for (std::uint64_t r = 0; r < g.rows; ++r) out += file.substr(g.file_offset + r * g.pitch, g.width);
  return out;
}

/// fill() of a slice of every sliceable tensor into guarded host memory: each destination gets
/// exactly the file's bytes of its slice, and the guards around it stay.
void check_fill(const st::Checkpoint& c, std::string_view file) {
  constexpr std::size_t kGuard = 16;
  std::vector<st::Destination> dests;
  std::vector<std::string> memory, want;
  for (const auto& t : c.tensors()) {
    if (t.shape.empty() || st::dtype_bits(t.dtype) % 8 != 0) continue;
    auto g = st::slice_geometry(t, slice_of(t));
    fuzz::require(g.has_value(), "a middle slice of '" + t.name + "' is refused: " + (g ? "" : g.error().message()));
    want.push_back(host_slice(t, *g, file));
    memory.push_back(std::string(kGuard, 'G') + std::string(g->bytes(), '\0') + std::string(kGuard, 'G'));
    dests.push_back(st::Destination{t.name, nullptr, static_cast<std::size_t>(g->bytes()), slice_of(t), t.dtype, g->shape});
  }
  for (std::size_t i = 0; i < dests.size(); ++i) dests[i].data = memory[i].data() + kGuard;
  st::FillOptions options;
  options.allow_unexpected = true;
  auto r = st::fill(c, dests, options);
  if (!r) fuzz::broken("fill() of slices of a checkpoint that opened failed: " + r.error().message());
  for (std::size_t i = 0; i < dests.size(); ++i) {
    fuzz::require(memory[i].substr(kGuard, want[i].size()) == want[i], "slice of '" + dests[i].name + "' differs");
    fuzz::require(memory[i].substr(0, kGuard) == std::string(kGuard, 'G') &&
                      memory[i].substr(kGuard + want[i].size()) == std::string(kGuard, 'G'),
                  "fill() wrote outside the destination of '" + dests[i].name + "'");
  }
}

void open_and_load(std::string_view file, std::size_t input_size) {
  const World& w = world();
  fuzz::write_file(w.path, file);
  auto c = st::Checkpoint::open(w.path);
  if (!c) return fuzz::check_error(c.error(), input_size);
  fuzz::check_tiling(c->tensors(), c->shards().at(0).size - c->shards().at(0).data_start);
  st::LoadOptions options;
  options.device = 0;
  auto loaded = st::load(*c, options);
  if (!loaded) fuzz::broken("a checkpoint that opened does not load: " + loaded.error().message());
  fuzz::require(loaded->tensors().size() == c->tensors().size(), "load() did not load every tensor");
  for (const auto& l : loaded->tensors()) check_tensor(l, *c, file);
  check_fill(*c, file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  if (data[0] % 2 == 1) open_and_load(rest, size);
  else open_and_load(fuzz::framed_file(fuzz::split_at_nul(rest)), size);
  return 0;
}
