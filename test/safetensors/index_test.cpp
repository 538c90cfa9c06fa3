// SPDX-License-Identifier: MIT
// Checkpoints of several files: shards given as a list, and Hugging Face index files, with
// their errors (a missing shard, a tensor the shard lacks, a name in two shards).
#include "common.hpp"

#include <fstream>
#include <string>
#include <vector>

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Dtype;
using sts::Errc;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct TwoShards {
  TempDir dir;
  Made first, second;
  TwoShards() {
    first = make_checkpoint(dir / "model-00001-of-00002.safetensors",
                            {{"embed", Dtype::BF16, {8, 4}}, {"layer.0.w", Dtype::F32, {3, 5}}}, 1,
                            "{\"format\":\"pt\"}");
    second = make_checkpoint(dir / "model-00002-of-00002.safetensors",
                             {{"layer.1.w", Dtype::F32, {5, 3}}, {"lm_head", Dtype::BF16, {4, 8}}}, 2,
                             "{\"format\":\"pt\",\"shard\":\"2\"}");
  }
  std::string index(const std::string& weight_map) const {
    return "{\"metadata\":{\"total_size\":240,\"name\":\"tiny\"},\"weight_map\":{" + weight_map + "}}";
  }
  std::string full_map() const {
    return "\"embed\":\"model-00001-of-00002.safetensors\",\"layer.0.w\":\"model-00001-of-00002.safetensors\","
           "\"layer.1.w\":\"model-00002-of-00002.safetensors\",\"lm_head\":\"model-00002-of-00002.safetensors\"";
  }
};

}  // namespace

TEST_CASE("an index opens every shard its weight_map names") {
  TwoShards s;
  const std::string index = s.dir / "model.safetensors.index.json";
  write_text(index, s.index(s.full_map()));
  auto c = sts::Checkpoint::open(index);
  REQUIRE(c);
  REQUIRE(c->shards().size() == 2);
  CHECK(c->shards()[0].path == s.dir / "model-00001-of-00002.safetensors");
  CHECK(c->shards()[1].path == s.dir / "model-00002-of-00002.safetensors");
  CHECK(c->index_path() == index);
  CHECK(c->index_metadata().at("total_size") == "240");
  CHECK(c->index_metadata().at("name") == "tiny");
  CHECK(c->metadata().at("format") == "pt");
  CHECK(c->metadata().at("shard") == "2");
  REQUIRE(c->tensors().size() == 4);
  CHECK(c->find("lm_head")->shard == 1);
  CHECK(c->find("embed")->shard == 0);
  CHECK(c->bytes() == 64 + 60 + 60 + 64);

  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  CHECK(loaded->allocations().size() == 2);
  for (const auto& name : {"embed", "layer.0.w"}) CHECK(host_bytes(*loaded->find(name)) == s.first.at(name));
  for (const auto& name : {"layer.1.w", "lm_head"}) CHECK(host_bytes(*loaded->find(name)) == s.second.at(name));
}

TEST_CASE("shards given as a list are one checkpoint") {
  TwoShards s;
  const std::vector<std::string> paths = {s.dir / "model-00002-of-00002.safetensors",
                                          s.dir / "model-00001-of-00002.safetensors"};
  auto c = sts::Checkpoint::open(paths);
  REQUIRE(c);
  CHECK(c->shards()[0].path == paths[0]);  // in the order given
  CHECK(c->tensors()[0].name == "layer.1.w");
  CHECK(c->index_path().empty());
  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  CHECK(host_bytes(*loaded->find("embed")) == s.first.at("embed"));
  CHECK(host_bytes(*loaded->find("lm_head")) == s.second.at("lm_head"));
}

TEST_CASE("a tensor in two shards is a duplicate") {
  TwoShards s;
  make_checkpoint(s.dir / "extra.safetensors", {{"lm_head", Dtype::U8, {2}}}, 3);
  const std::vector<std::string> paths = {s.dir / "model-00002-of-00002.safetensors", s.dir / "extra.safetensors"};
  auto c = sts::Checkpoint::open(paths);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::duplicate_name);
  CHECK(c.error().message() == (s.dir / "extra.safetensors") + ": tensor 'lm_head': is also in " + paths[0]);
}

TEST_CASE("an index naming a missing shard, or a tensor its shard lacks") {
  TwoShards s;
  const std::string index = s.dir / "model.safetensors.index.json";
  write_text(index, s.index(s.full_map() + ",\"zeta\":\"model-00003-of-00002.safetensors\""));
  auto c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::missing_shard);
  CHECK(c.error().message() == index + ": tensor 'zeta': shard '" + (s.dir / "model-00003-of-00002.safetensors") +
                                   "' cannot be opened: No such file or directory (ENOENT)");

  write_text(index, s.index(s.full_map() + ",\"ghost\":\"model-00001-of-00002.safetensors\""));
  c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::missing_tensor);
  CHECK(c.error().message() == (s.dir / "model-00001-of-00002.safetensors") + ": tensor 'ghost': is listed for this shard in " +
                                   index + " but is not in its header");

  // The tensor exists, but in the other shard.
  write_text(index, s.index("\"embed\":\"model-00002-of-00002.safetensors\",\"lm_head\":\"model-00002-of-00002.safetensors\""));
  c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::missing_tensor);
  CHECK(c.error().tensor() == "embed");
}

TEST_CASE("malformed index files") {
  TwoShards s;
  const std::string index = s.dir / "model.safetensors.index.json";
  auto expect = [&](const std::string& text, Errc code, const std::string& message) {
    write_text(index, text);
    auto c = sts::Checkpoint::open(index);
    REQUIRE_FALSE(c);
    CHECK(sts::errc_name(c.error().code()) == sts::errc_name(code));
    CHECK(c.error().message() == index + ": " + message);
  };
  expect("[]", Errc::invalid_index, "index is an array, not a JSON object");
  expect("{\"metadata\":{}}", Errc::invalid_index, "index has no \"weight_map\" object");
  expect("{\"weight_map\":{\"a\":3}}", Errc::invalid_index, "tensor 'a': weight_map value is a number, not a shard file name");
  expect("{\"weight_map\":{\"a\":\"\"}}", Errc::invalid_index, "tensor 'a': weight_map value is a string, not a shard file name");
  expect("{\"weight_map\":{\"a\":\"x\",\"a\":\"y\"}}", Errc::duplicate_name, "tensor 'a': appears twice in the index");
  expect("{\"weight_map\":{\"a\xfe\":\"x\"}}", Errc::invalid_utf8, "index is not valid UTF-8 (byte 17)");
  write_text(index, "{\"weight_map\":");
  auto c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::invalid_json);
  // A bad shard header is reported against the shard.
  write_text(s.dir / "model-00002-of-00002.safetensors", "short");
  write_text(index, s.index(s.full_map()));
  c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::file_too_short);
  CHECK(c.error().file() == s.dir / "model-00002-of-00002.safetensors");
}

TEST_CASE("no files at all") {
  auto c = sts::Checkpoint::open(std::span<const std::string>());
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::invalid_argument);
  CHECK(c.error().message() == "no checkpoint file given");
}
