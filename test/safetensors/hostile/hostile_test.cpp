// SPDX-License-Identifier: MIT
// Hostile checkpoints: the files beside this one (each with its exact refusal), and big ones
// made here at run time (100,000-deep nesting, 100 MB headers, 200,000 tensors). Every parse
// of a deep input runs on a thread with a 256 KiB stack, so a recursion over the input's depth
// would crash the test; the big headers check the outcome (the time is measured by hand).
#include "../common.hpp"

#include <pthread.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Errc;

namespace {

const std::string kDir = HIPFILE_ST_HOSTILE_DIR;

// Runs @p fn on a thread whose stack is 256 KiB (a fuzzer crashed the recursive renderer at
// 510 levels under this size). Assertions stay on the calling thread.
void on_small_stack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
  pthread_t thread;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  REQUIRE(pthread_create(&thread, &attr, run, const_cast<std::function<void()>*>(&fn)) == 0);
  pthread_attr_destroy(&attr);
  REQUIRE(pthread_join(thread, nullptr) == 0);
}

sts::Result<sts::Checkpoint> open_small(const std::string& path) {
  std::optional<sts::Result<sts::Checkpoint>> out;
  on_small_stack([&] { out.emplace(sts::Checkpoint::open(path)); });
  return std::move(*out);
}

sts::Result<sts::Header> parse_small(const std::string& text, std::uint64_t data_size) {
  std::optional<sts::Result<sts::Header>> out;
  on_small_stack([&] { out.emplace(sts::parse_header("big", text, data_size)); });
  return std::move(*out);
}

// Refused with @p code and a message "PATH: ..." holding @p fragment, bounded in length.
void expect_refused(const std::string& path, const sts::Result<sts::Checkpoint>& c, Errc code, const std::string& fragment) {
  INFO(path);
  CHECK_FALSE(c);
  if (c) return;  // the next file still runs
  CHECK(sts::errc_name(c.error().code()) == sts::errc_name(code));
  const std::string m = c.error().message();
  INFO(m.substr(0, 600));
  CHECK(m.rfind(path + ": ", 0) == 0);
  CHECK(m.find(fragment) != std::string::npos);
  CHECK(m.size() <= path.size() + 600);
}

struct Case {
  const char* file;
  Errc code;
  std::string fragment;
};

std::vector<Case> cases() {
  const std::string n160(160, 'n'), f160(160, 'F');
  return {
      {"deep-shape.safetensors", Errc::invalid_shape, "tensor 'w': shape [[...: dimension 0 is an array, not a non-negative integer"},
      {"deep-data-offsets.safetensors", Errc::invalid_entry, "tensor 'w': data_offsets [[... are not non-negative integers"},
      {"deep-entry.safetensors", Errc::invalid_entry, "tensor 'w': entry is an array, not an object"},
      {"deep-metadata.safetensors", Errc::invalid_metadata, ": __metadata__ value of 'k' is an array, not a string"},
      {"deep-unknown-key.safetensors", Errc::invalid_json, ": header nests JSON more than 16 levels deep"},
      {"nul-padding.safetensors", Errc::invalid_json, ": header has a NUL byte at byte 53 (only whitespace may pad it)"},
      {"nul-then-garbage.safetensors", Errc::invalid_json, ": header has a NUL byte at byte 2 "},
      {"bom.safetensors", Errc::header_not_object, ": header starts with byte 0xEF, not '{' (a UTF-8 byte-order mark)"},
      {"leading-formfeed.safetensors", Errc::header_not_object, ": header starts with byte 0x0C, not '{'"},
      {"escape-in-name.safetensors", Errc::size_mismatch,
       ": tensor '\\x1b]0;pwned\\x07\\x1b[2J': shape [3] of F32 is 12 bytes, but data_offsets [0, 16] hold 16"},
      {"long-name.safetensors", Errc::size_mismatch, ": tensor '" + n160 + "... (5000 bytes)': shape [3] of F32"},
      {"long-dtype.safetensors", Errc::unknown_dtype, ": tensor 'w': unknown dtype \"" + f160 + "... (5000 bytes)\""},
      {"long-token-syntax-error.safetensors", Errc::invalid_json,
       ": header is not valid JSON: parse error at line 1, column 5007: syntax error while parsing value - invalid "
       "string: missing closing quote; last read: '\"sss"},
      {"deep-metadata.index.json", Errc::invalid_json, ": index nests JSON more than 16 levels deep"},
      {"traversal.index.json", Errc::invalid_index,
       ": tensor 'w': shard name '../../../../../../etc/passwd' has a '..' component: shards must be inside the index's folder"},
      {"absolute.index.json", Errc::invalid_index,
       ": tensor 'w': shard name '/etc/passwd' is an absolute path: shard names are relative to the index's folder"},
      {"nul-in-shard-name.index.json", Errc::invalid_index, ": tensor 'w': shard name 'model.safetensors\\x00.txt' has a NUL byte"},
      {"bom.index.json", Errc::invalid_json, ": index starts with a UTF-8 byte-order mark"},
  };
}

std::string text_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string nested(std::size_t depth, const std::string& inner = "") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

}  // namespace

TEST_CASE("every hostile file is refused with its code and message, on a 256 KiB stack") {
  std::set<std::string> listed;
  for (const auto& c : cases()) {
    listed.insert(c.file);
    const std::string path = kDir + "/" + c.file;
    expect_refused(path, open_small(path), c.code, c.fragment);
  }
  // A file added to the folder without an expectation is a test that never runs.
  for (const auto& e : std::filesystem::directory_iterator(kDir)) {
    const std::string name = e.path().filename().string();
    if (name == "hostile_test.cpp" || name == "README.md") continue;
    INFO(name);
    CHECK(listed.count(name) == 1);
  }
}

TEST_CASE("100,000-deep shape and data_offsets are refused at their second bracket") {
  const std::string shape = "{\"w\":{\"dtype\":\"F32\",\"shape\":" + nested(100'000) + ",\"data_offsets\":[0,0]}}";
  auto h = parse_small(shape, 0);
  REQUIRE_FALSE(h);
  CHECK(h.error().message() == "big: tensor 'w': shape [[...: dimension 0 is an array, not a non-negative integer");
  const std::string offsets = "{\"w\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0," + nested(100'000) + "]}}";
  h = parse_small(offsets, 0);
  REQUIRE_FALSE(h);
  CHECK(h.error().message() == "big: tensor 'w': data_offsets [0, [... are not non-negative integers");
}

TEST_CASE("an index whose metadata value nests 1,000,000 deep is refused") {
  TempDir dir;
  const std::string index =
      text_file(dir / "deep.index.json", "{\"metadata\":{\"k\":" + nested(1'000'000) + "},\"weight_map\":{}}");
  expect_refused(index, open_small(index), Errc::invalid_json, ": index nests JSON more than 16 levels deep");
}

TEST_CASE("a 100 MB header of nested brackets is refused") {
  const std::size_t depth = (sts::kMaxHeaderBytes - 100) / 2;
  const std::string text = "{\"w\":{\"x\":" + nested(depth) + "}}";
  REQUIRE(text.size() <= sts::kMaxHeaderBytes);
  auto h = parse_small(text, 0);
  REQUIRE_FALSE(h);
  CHECK(h.error().code() == Errc::invalid_json);
  CHECK(h.error().message() == "big: header nests JSON more than 16 levels deep");
}

TEST_CASE("a 99 MB unknown entry key of [],[],... is skipped and the header accepted") {
  std::string text = "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2],\"x\":[[]";
  const std::size_t pairs = (99'000'000 - text.size()) / 3;
  text.reserve(text.size() + 3 * pairs + 8);
  for (std::size_t i = 0; i < pairs; ++i) text += ",[]";
  text += "]}}";
  auto h = parse_small(text, 2);
  REQUIRE(h);
  REQUIRE(h->tensors.size() == 1);
  CHECK(h->tensors[0].name == "w");
  CHECK(h->tensors[0].bytes() == 2);
}

TEST_CASE("a 200,000-tensor header parses into every row") {
  const std::size_t n = 200'000;
  std::string text = "{";
  for (std::size_t i = 0; i < n; ++i) {
    // Names in reverse of offset order, so the sort has work to do.
    if (i) text += ",";
    text += entry("layer." + std::to_string(n - 1 - i) + ".w", "BF16", "[2,3]", 12 * (n - 1 - i), 12 * (n - i));
  }
  text += "}";
  auto h = sts::parse_header("big", text, 12 * n);
  REQUIRE(h);
  REQUIRE(h->tensors.size() == n);
  CHECK(h->tensors[0].name == "layer.0.w");
  CHECK(h->tensors[n - 1].name == "layer.199999.w");
  CHECK(h->tensors[n - 1].begin == 12 * (n - 1));
  CHECK(h->tensors[n - 1].shape == std::vector<std::uint64_t>{2, 3});
  // The same with one name twice, at the very end: found by hashing, not missed.
  text.back() = ',';
  text += entry("layer.7.w", "BF16", "[2,3]", 12 * n, 12 * (n + 1)) + "}";
  h = sts::parse_header("big", text, 12 * (n + 1));
  REQUIRE_FALSE(h);
  CHECK(h.error().message() == "big: tensor 'layer.7.w': appears twice in the header");
}
