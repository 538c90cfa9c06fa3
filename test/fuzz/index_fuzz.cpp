// SPDX-License-Identifier: MIT
// libFuzzer target for the Hugging Face index reader: each input is written as
// model.safetensors.index.json into a private folder that also holds the shards the corpus
// names (two valid ones, one that repeats a tensor of the first, one too short to have a
// header), then Checkpoint::open_index() reads it. Opens are confined to that folder
// (confine.c), so whatever shard names an input gives, nothing outside it is reached. An
// opened checkpoint must have its shards inside the folder, at their real sizes, each data
// section tiled by its tensors; a refusal must carry a bounded message.
#include <sys/stat.h>

#include <map>

#include "st_fuzz.hpp"

extern "C" {
void fuzz_confine_opens(const char* dir);
unsigned long fuzz_refused_opens(void);
}

namespace {

namespace st = fuzz::st;

struct ShardFile {
  const char* name;
  const char* header;
  std::size_t data_bytes;
};

// The shard files every input can name (the corpus and index.dict use these names).
constexpr ShardFile kShards[] = {
    {"model-00001-of-00002.safetensors",
     R"({"__metadata__":{"format":"pt"},"embed.weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
     R"("layer.0.bias":{"dtype":"BF16","shape":[3],"data_offsets":[16,22]}})",
     22},
    {"model-00002-of-00002.safetensors",
     R"({"layer.1.weight":{"dtype":"I8","shape":[2,3],"data_offsets":[0,6]},)"
     R"("scalar":{"dtype":"F64","shape":[],"data_offsets":[6,14]},"empty":{"dtype":"U8","shape":[0],"data_offsets":[14,14]}})",
     14},
    {"dup.safetensors", R"({"embed.weight":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1},
};

struct Folder {
  std::string dir;
  std::string index;
};

const Folder& folder() {
  static const Folder f = [] {
    Folder out{fuzz::private_dir("index-fuzz"), ""};
    out.index = out.dir + "/model.safetensors.index.json";
    for (const auto& s : kShards) {
      const std::string data(s.data_bytes, '\x5a');
      fuzz::write_file(out.dir + "/" + s.name, fuzz::framed_file({s.header, data}));
    }
    fuzz::write_file(out.dir + "/short.safetensors", "abc");
    // The confinement must hold, or the target could read anything: checked once, loudly.
    fuzz_confine_opens(out.dir.c_str());
    const int outside = ::open("/etc/hostname", O_RDONLY | O_CLOEXEC);
    const int escaped = ::open((out.dir + "/../" + out.dir.substr(out.dir.rfind('/') + 1) + "/dup.safetensors").c_str(), O_RDONLY);
    fuzz_confine_opens(nullptr);
    fuzz::require(outside < 0 && escaped < 0 && fuzz_refused_opens() == 2, "opens are not confined to " + out.dir);
    return out;
  }();
  return f;
}

bool inside(const std::string& path, const std::string& dir) {
  return path.rfind(dir + "/", 0) == 0 && path.find("/..", dir.size()) == std::string::npos;
}

void check_opened(const st::Checkpoint& c, const Folder& f) {
  fuzz::require(c.index_path() == f.index, "index_path is not the index opened");
  std::map<std::size_t, std::vector<const st::TensorInfo*>> by_shard;
  for (const auto& t : c.tensors()) {
    fuzz::require(t.shard < c.shards().size(), "tensor '" + t.name + "' of no shard");
    fuzz::require(c.find(t.name) == &t, "find('" + t.name + "') is another tensor");
    fuzz::require(t.file_offset == c.shards()[t.shard].data_start + t.begin, "tensor '" + t.name + "' has a wrong file_offset");
    by_shard[t.shard].push_back(&t);
  }
  for (std::size_t i = 0; i < c.shards().size(); ++i) {
    const st::Shard& s = c.shards()[i];
    fuzz::require(inside(s.path, f.dir), "shard '" + s.path + "' is outside " + f.dir);
    struct stat info {};
    fuzz::require(::fstat(c.shard_fd(i), &info) == 0 && static_cast<std::uint64_t>(info.st_size) == s.size,
                  "shard '" + s.path + "' is not the size recorded");
    fuzz::require(s.data_start <= s.size, "shard '" + s.path + "' has its data before its header ends");
    fuzz::check_tiling(by_shard[i], s.size - s.data_start);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Folder& f = folder();
  fuzz::write_file(f.index, std::string_view(reinterpret_cast<const char*>(data), size));
  fuzz_confine_opens(f.dir.c_str());
  auto c = st::Checkpoint::open_index(f.index);
  fuzz_confine_opens(nullptr);
  if (c) check_opened(*c, f);
  else fuzz::check_error(c.error(), size);
  return 0;
}
