// SPDX-License-Identifier: MIT
// Checkpoints of several files: shards given as a list, and Hugging Face index files, with
// their errors (a missing shard, a tensor the shard lacks, a name in two shards).
#include "common.hpp"

#include <sys/stat.h>

#include <filesystem>
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

TEST_CASE("shard names must be plain relative paths inside the index's folder") {
  TwoShards s;
  const std::string index = s.dir / "model.safetensors.index.json";
  auto expect = [&](const std::string& shard_json, const std::string& message) {
    write_text(index, s.index("\"w\":" + shard_json));
    auto c = sts::Checkpoint::open(index);
    REQUIRE_FALSE(c);
    CHECK(c.error().code() == Errc::invalid_index);
    CHECK(c.error().tensor() == "w");
    CHECK(c.error().message() == index + ": tensor 'w': " + message);
  };
  const std::string outside = "has a '..' component: shards must be inside the index's folder";
  expect("\"../model-00001-of-00002.safetensors\"", "shard name '../model-00001-of-00002.safetensors' " + outside);
  expect("\"sub/../../x\"", "shard name 'sub/../../x' " + outside);
  expect("\"sub/..\"", "shard name 'sub/..' " + outside);
  expect("\"" + s.dir.path() + "/model-00001-of-00002.safetensors\"",
         "shard name '" + s.dir.path() + "/model-00001-of-00002.safetensors' is an absolute path: shard names are "
         "relative to the index's folder");
  // Before: the name was cut at the NUL and the shard before it opened.
  expect("\"model-00001-of-00002.safetensors\\u0000evil\"",
         "shard name 'model-00001-of-00002.safetensors\\x00evil' has a NUL byte");
  // A name that is lexically fine but missing is shown escaped.
  write_text(index, s.index("\"w\":\"\\u001b[2J..safetensors\""));
  auto c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::missing_shard);
  CHECK(c.error().message() == index + ": tensor 'w': shard '" + (s.dir / "\\x1b[2J..safetensors") +
                                   "' cannot be opened: No such file or directory (ENOENT)");
}

TEST_CASE("the Hugging Face cache layout: snapshot files are symlinks into ../../blobs") {
  TwoShards s;
  const std::string snap = s.dir / "snapshots/abc123";
  std::filesystem::create_directories(snap);
  std::filesystem::create_directories(s.dir / "blobs");
  for (const char* shard : {"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}) {
    std::filesystem::rename(s.dir / shard, s.dir / (std::string("blobs/") + shard + ".blob"));
    std::filesystem::create_symlink(std::string("../../blobs/") + shard + ".blob", snap + "/" + shard);
  }
  const std::string index = snap + "/model.safetensors.index.json";
  write_text(index, s.index(s.full_map()));
  auto c = sts::Checkpoint::open(index);
  REQUIRE(c);
  CHECK(c->shards()[1].path == snap + "/model-00002-of-00002.safetensors");
  auto loaded = sts::load(*c);
  REQUIRE(loaded);
  CHECK(host_bytes(*loaded->find("embed")) == s.first.at("embed"));
  CHECK(host_bytes(*loaded->find("lm_head")) == s.second.at("lm_head"));
}

TEST_CASE("a FIFO as an index or a shard is refused without waiting") {
  TwoShards s;
  const std::string fifo = s.dir / "fifo.safetensors";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string index = s.dir / "model.safetensors.index.json";
  write_text(index, s.index(s.full_map() + ",\"zz\":\"fifo.safetensors\""));
  auto c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::missing_shard);
  CHECK(c.error().message() == index + ": tensor 'zz': shard '" + fifo + "' is a FIFO, not a regular file");
  const std::string fifo_index = s.dir / "fifo.index.json";
  REQUIRE(::mkfifo(fifo_index.c_str(), 0600) == 0);
  c = sts::Checkpoint::open(fifo_index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::io_error);
  CHECK(c.error().message() == fifo_index + ": is a FIFO, not a regular file");
}

TEST_CASE("an index naming more than 10,000 shard files is refused before opening any") {
  TwoShards s;
  std::string map = s.full_map();
  for (int i = 0; i < 9'999; ++i) map += ",\"t" + std::to_string(i) + "\":\"s" + std::to_string(i) + ".safetensors\"";
  const std::string index = s.dir / "model.safetensors.index.json";
  write_text(index, s.index(map));
  auto c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::invalid_index);
  CHECK(c.error().message() == index + ": index names 10001 shard files, above the limit of 10000");
}

TEST_CASE("index metadata values of any JSON kind are kept as JSON text") {
  TwoShards s;
  const std::string index = s.dir / "model.safetensors.index.json";
  write_text(index, "{\"metadata\":{\"cfg\":{\"a\":[1,-2,{\"b\":null}],\"s\":\"x\\\"y\"},\"list\":[1.5,true],"
                    "\"deep\":" + std::string(13, '[') + std::string(13, ']') + "},\"weight_map\":{" + s.full_map() + "}}");
  auto c = sts::Checkpoint::open(index);
  REQUIRE(c);
  CHECK(c->index_metadata().at("cfg") == "{\"a\": [1, -2, {\"b\": null}], \"s\": \"x\\\"y\"}");
  CHECK(c->index_metadata().at("list") == "[1.5, true]");
  CHECK(c->index_metadata().at("deep") == std::string(13, '[') + std::string(13, ']'));
  write_text(index, "{\"metadata\":{\"deep\":" + std::string(15, '[') + std::string(15, ']') + "},\"weight_map\":{}}");
  c = sts::Checkpoint::open(index);
  REQUIRE_FALSE(c);
  CHECK(c.error().message() == index + ": index nests JSON more than 16 levels deep");
}
