// SPDX-License-Identifier: MIT
// Bad checkpoints: every malformed case of the format is refused at open with its exact
// error, naming the file and (where there is one) the tensor; nothing is allocated.
#include "common.hpp"
#include "text.hpp"  // the loader's private printable() (safetensors/text.hpp)

#include <sys/stat.h>

#include <string>
#include <vector>

using namespace hipfile::test;
using namespace hipfile::test::st;
using sts::Errc;

namespace {

// Opens a file holding @p header (length field = its size unless @p length) and @p data
// bytes; the open must fail with @p code and exactly "PATH: " + @p message.
void expect_bad(const std::string& header, std::size_t data, Errc code, const std::string& message,
                std::optional<std::uint64_t> length = std::nullopt) {
  TempDir dir;
  const std::string path = dir / "bad.safetensors";
  write_raw(path, header, pattern(data, 3), length);
  const int live = live_device_allocations();
  auto c = sts::Checkpoint::open(path);
  REQUIRE_FALSE(c.has_value());
  CHECK(sts::errc_name(c.error().code()) == sts::errc_name(code));
  CHECK(c.error().file() == path);
  CHECK(c.error().message() == path + ": " + message);
  CHECK(live_device_allocations() == live);
}

const std::string kF32x4 = entry("a", "F32", "[4]", 0, 16);

}  // namespace

TEST_CASE("a file shorter than 8 bytes") {
  TempDir dir;
  for (std::size_t n : {0u, 1u, 7u}) {
    const std::string path = dir / ("short" + std::to_string(n));
    write_file(path, pattern(n, 1));
    auto c = sts::Checkpoint::open(path);
    REQUIRE_FALSE(c);
    CHECK(c.error().code() == Errc::file_too_short);
    CHECK(c.error().message() ==
          path + ": file is " + std::to_string(n) + " bytes, shorter than the 8-byte header length");
  }
}

TEST_CASE("header length beyond the file or above 100 MB") {
  expect_bad("{}", 0, Errc::header_beyond_file,
             "header length 3 runs past the end of the file (8 + 3 > 10 bytes)", 3);
  const std::string one = "{" + kF32x4 + "}";
  expect_bad(one, 16, Errc::header_beyond_file,
             "header length 1000 runs past the end of the file (8 + 1000 > " + std::to_string(8 + one.size() + 16) +
                 " bytes)",
             1000);
  expect_bad("{}", 0, Errc::header_too_large, "header length 100000001 is above the format's limit of 100000000 bytes",
             100000001);
  expect_bad("{}", 0, Errc::header_too_large,
             "header length 18446744073709551615 is above the format's limit of 100000000 bytes", UINT64_MAX);
}

TEST_CASE("invalid UTF-8 and invalid JSON") {
  expect_bad("{\"a\xff\":1}", 0, Errc::invalid_utf8, "header is not valid UTF-8 (byte 3 of the header)");
  expect_bad("{\"\xc0\xaf\":1}", 0, Errc::invalid_utf8, "header is not valid UTF-8 (byte 2 of the header)");  // overlong '/'
  expect_bad("{\"\xed\xa0\x80\":1}", 0, Errc::invalid_utf8, "header is not valid UTF-8 (byte 2 of the header)");  // surrogate
  expect_bad("{\"x\":\"\xe2\x82\"}", 0, Errc::invalid_utf8, "header is not valid UTF-8 (byte 6 of the header)");  // cut short
  TempDir dir;
  const std::string path = dir / "notjson.safetensors";
  write_raw(path, "{\"a\":{\"dtype\":\"F32\",}", {});
  auto c = sts::Checkpoint::open(path);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::invalid_json);
  CHECK(c.error().message().rfind(path + ": header is not valid JSON: parse error at line 1, column 21", 0) == 0);
  write_raw(path, "", {});
  c = sts::Checkpoint::open(path);
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::invalid_json);
}

TEST_CASE("a header that is not an object") {
  expect_bad("[1,2]", 0, Errc::header_not_object, "header is an array, not a JSON object");
  expect_bad("\"model\"", 0, Errc::header_not_object, "header is a string, not a JSON object");
  expect_bad("42      ", 0, Errc::header_not_object, "header is a number, not a JSON object");
}

TEST_CASE("tensor entries without dtype, shape or data_offsets") {
  expect_bad("{\"w\":[]}", 0, Errc::invalid_entry, "tensor 'w': entry is an array, not an object");
  expect_bad("{\"w\":{\"shape\":[],\"data_offsets\":[0,0]}}", 0, Errc::invalid_entry, "tensor 'w': entry has no \"dtype\" string");
  expect_bad("{\"w\":{\"dtype\":5,\"shape\":[],\"data_offsets\":[0,0]}}", 0, Errc::invalid_entry,
             "tensor 'w': entry has no \"dtype\" string");
  expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":4,\"data_offsets\":[0,16]}}", 16, Errc::invalid_entry,
             "tensor 'w': entry has no \"shape\" array");
  expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0]}}", 16, Errc::invalid_entry,
             "tensor 'w': entry has no \"data_offsets\" pair");
  expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[4]}}", 16, Errc::invalid_entry,
             "tensor 'w': entry has no \"data_offsets\" pair");
  expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,-16]}}", 16, Errc::invalid_entry,
             "tensor 'w': data_offsets [0, -16] are not non-negative integers");
}

TEST_CASE("unknown dtypes") {
  expect_bad("{" + entry("w", "F31", "[4]", 0, 16) + "}", 16, Errc::unknown_dtype, "tensor 'w': unknown dtype \"F31\"");
  expect_bad("{" + entry("w", "f32", "[4]", 0, 16) + "}", 16, Errc::unknown_dtype, "tensor 'w': unknown dtype \"f32\"");
}

TEST_CASE("negative, fractional and overflowing shapes") {
  expect_bad("{" + entry("w", "F32", "[2,-2]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [2, -2]: dimension 1 is not a non-negative integer");
  expect_bad("{" + entry("w", "F32", "[1.5]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [1.5]: dimension 0 is not a non-negative integer");
  expect_bad("{" + entry("w", "F32", "[\"4\"]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [\"4\"]: dimension 0 is not a non-negative integer");
  // Beyond 64 bits nlohmann reads a number as a float: not an integer dimension.
  expect_bad("{" + entry("w", "U8", "[18446744073709551616]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [1.8446744073709552e+19]: dimension 0 is not a non-negative integer");
  expect_bad("{" + entry("w", "F32", "[4294967296,4294967296]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [4294967296, 4294967296] overflows 64 bits of data");
  expect_bad("{" + entry("w", "F4", "[3]", 0, 2) + "}", 2, Errc::size_mismatch,
             "tensor 'w': shape [3] of F4 is not a whole number of bytes");
}

TEST_CASE("data_offsets out of range, out of order, overlapping, leaving gaps") {
  expect_bad("{" + entry("w", "F32", "[4]", 0, 16) + "}", 12, Errc::offsets_out_of_range,
             "tensor 'w': data_offsets [0, 16] run past the end of the data section (12 bytes)");
  expect_bad("{" + entry("w", "F32", "[0]", 16, 0) + "}", 16, Errc::offsets_out_of_order,
             "tensor 'w': data_offsets [16, 0] end before they begin");
  expect_bad("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("b", "F32", "[4]", 8, 24) + "}", 24, Errc::offsets_overlap,
             "tensor 'b': data_offsets [8, 24] overlap tensor 'a' [0, 16]");
  // An empty tensor inside another one's bytes overlaps too (the safetensors package agrees).
  expect_bad("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("e", "F32", "[0]", 8, 8) + "}", 16, Errc::offsets_overlap,
             "tensor 'e': data_offsets [8, 8] overlap tensor 'a' [0, 16]");
  expect_bad("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("b", "F32", "[4]", 20, 36) + "}", 36, Errc::offsets_gap,
             "tensor 'b': data_offsets [20, 36] leave 4 bytes before them that no tensor covers");
  expect_bad("{" + entry("a", "F32", "[4]", 4, 20) + "}", 20, Errc::offsets_gap,
             "tensor 'a': data_offsets [4, 20] leave 4 bytes before them that no tensor covers");
  expect_bad("{" + entry("a", "F32", "[4]", 0, 16) + "}", 19, Errc::offsets_gap,
             "tensor 'a': the data section has 3 bytes after the last tensor that no tensor covers");
  expect_bad("{}", 5, Errc::offsets_gap, "the data section has 5 bytes after the last tensor that no tensor covers");
}

TEST_CASE("shape times dtype size differs from the byte range") {
  expect_bad("{" + entry("w", "BF16", "[3,3]", 0, 16) + "}", 16, Errc::size_mismatch,
             "tensor 'w': shape [3, 3] of BF16 is 18 bytes, but data_offsets [0, 16] hold 16");
  expect_bad("{" + entry("w", "F64", "[]", 0, 4) + "}", 4, Errc::size_mismatch,
             "tensor 'w': shape [] of F64 is 8 bytes, but data_offsets [0, 4] hold 4");
}

TEST_CASE("duplicate names and bad metadata") {
  expect_bad("{" + entry("a", "F32", "[4]", 0, 16) + "," + entry("a", "F32", "[4]", 16, 32) + "}", 32, Errc::duplicate_name,
             "tensor 'a': appears twice in the header");
  expect_bad("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 16,
             Errc::duplicate_name, "key 'dtype' appears twice in one object of the header");
  expect_bad("{\"__metadata__\":[]," + kF32x4 + "}", 16, Errc::invalid_metadata, "__metadata__ is an array, not an object");
  expect_bad("{\"__metadata__\":{\"format\":\"pt\",\"n\":3}," + kF32x4 + "}", 16, Errc::invalid_metadata,
             "__metadata__ value of 'n' is a number, not a string");
}

TEST_CASE("a valid header with padding, metadata and unknown entry keys opens") {
  TempDir dir;
  const std::string path = dir / "ok.safetensors";
  write_raw(path,
            "{\"__metadata__\":{\"format\":\"pt\"},\"b\":{\"dtype\":\"I8\",\"shape\":[3],\"data_offsets\":[16,19],"
            "\"extra\":1}," + kF32x4 + "}     ",
            pattern(19, 2));
  auto c = sts::Checkpoint::open(path);
  REQUIRE(c);
  REQUIRE(c->tensors().size() == 2);
  CHECK(c->tensors()[0].name == "a");  // in file order
  CHECK(c->tensors()[1].name == "b");
  CHECK(c->tensors()[1].dtype == sts::Dtype::I8);
  CHECK(c->tensors()[1].shape == std::vector<std::uint64_t>{3});
  const std::uint64_t header = std::string("{\"__metadata__\":{\"format\":\"pt\"},\"b\":{\"dtype\":\"I8\",\"shape\":[3],"
                                           "\"data_offsets\":[16,19],\"extra\":1}," + kF32x4 + "}     ").size();
  CHECK(c->shards()[0].data_start == 8 + header);
  CHECK(c->tensors()[1].file_offset == 8 + header + 16);
  CHECK(c->tensors()[1].bytes() == 3);
  CHECK(c->metadata().at("format") == "pt");
  CHECK(c->find("b") == &c->tensors()[1]);
  CHECK(c->find("c") == nullptr);
  CHECK(c->bytes() == 19);
}

TEST_CASE("a missing file is an io_error naming it") {
  TempDir dir;
  auto c = sts::Checkpoint::open(dir / "none.safetensors");
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::io_error);
  CHECK(c.error().cause().sys_errno() == ENOENT);
  CHECK(c.error().message() == (dir / "none.safetensors") + ": cannot open: No such file or directory (ENOENT)");
}

TEST_CASE("the format's byte rules: '{' first after JSON whitespace, only whitespace after the JSON") {
  // Spaces, tabs, CR and LF pad a header on either side (writers align the data section so),
  // as the safetensors reader's test_whitespace_padded_header and
  // test_whitespace_leading_padded_header accept them.
  TempDir dir;
  const std::string path = dir / "padded.safetensors";
  for (const std::string lead : {"", "\t\n", " ", "\r\n  \t"}) {
    INFO("leading bytes: " << lead.size());
    write_raw(path, lead + "{" + kF32x4 + "} \t\r\n", pattern(16, 1));
    auto c = sts::Checkpoint::open(path);
    REQUIRE(c);
    REQUIRE(c->tensors().size() == 1);
    CHECK(c->tensors()[0].file_offset == 8 + lead.size() + kF32x4.size() + 6);
    auto loaded = sts::load(path);
    REQUIRE(loaded);
    CHECK(host_bytes(*loaded->find("a")) == pattern(16, 1));
  }
  write_raw(path, "\t\n{}\r ", {});  // the reader's own test file
  CHECK(sts::Checkpoint::open(path));
  // nlohmann reads NUL as the end of the input and skips a BOM: both are refused first.
  expect_bad("{" + kF32x4 + "}" + std::string(3, '\0'), 16, Errc::invalid_json,
             "header has a NUL byte at byte " + std::to_string(kF32x4.size() + 2) + " (only whitespace may pad it)");
  expect_bad("\xEF\xBB\xBF{" + kF32x4 + "}", 16, Errc::header_not_object,
             "header starts with byte 0xEF, not '{' (a UTF-8 byte-order mark)");
  // Whitespace is JSON's four bytes only: a form feed or vertical tab is not (serde_json agrees).
  expect_bad("\f{" + kF32x4 + "}", 16, Errc::header_not_object, "header starts with byte 0x0C, not '{'");
  expect_bad(" \v{" + kF32x4 + "}", 16, Errc::header_not_object, "header starts with byte 0x0B, not '{'");
  expect_bad("\n [1]", 0, Errc::header_not_object, "header is an array, not a JSON object");
  expect_bad(" \t\r\n    ", 0, Errc::invalid_json, "header is only whitespace, not a JSON object");
  expect_bad("null", 0, Errc::header_not_object, "header is null, not a JSON object");
  expect_bad("{}x", 0, Errc::invalid_json,
             "header is not valid JSON: parse error at line 1, column 3: syntax error while parsing value - invalid "
             "literal; last read: '{}x'; expected end of input");
}

TEST_CASE("a container where the format has a number or string is refused at once") {
  expect_bad("{" + entry("w", "F32", "[2,[3]]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [2, [...: dimension 1 is an array, not a non-negative integer");
  expect_bad("{" + entry("w", "F32", "[\"x\",{}]", 0, 16) + "}", 16, Errc::invalid_shape,
             "tensor 'w': shape [\"x\", {...: dimension 1 is an object, not a non-negative integer");
  expect_bad("{\"w\":{\"dtype\":[\"F32\"],\"shape\":[4],\"data_offsets\":[0,16]}}", 16, Errc::invalid_entry,
             "tensor 'w': entry has no \"dtype\" string");
  expect_bad("{\"w\":{\"dtype\":\"F32\",\"shape\":{},\"data_offsets\":[0,16]}}", 16, Errc::invalid_entry,
             "tensor 'w': entry has no \"shape\" array");
  expect_bad("{\"__metadata__\":{\"k\":{}}}", 0, Errc::invalid_metadata, "__metadata__ value of 'k' is an object, not a string");
  // Unknown entry keys may hold any JSON, up to 16 levels in all (header, entry, 14 more).
  expect_bad("{\"w\":{\"x\":" + std::string(14, '[') + std::string(14, ']') + "}}", 0, Errc::invalid_entry,
             "tensor 'w': entry has no \"dtype\" string");
  expect_bad("{\"w\":{\"x\":" + std::string(14, '[') + std::string(14, ']') + ",\"x\":1}}", 0, Errc::duplicate_name,
             "key 'x' appears twice in one object of the header");
  expect_bad("{\"w\":{\"x\":" + std::string(14, '[') + "{}" + std::string(14, ']') + "}}", 0, Errc::invalid_json,
             "header nests JSON more than 16 levels deep");
}

TEST_CASE("names and values in messages are escaped and bounded") {
  // ESC, BEL, DEL as \xNN; C1 CSI and a right-to-left override as \uXXXX.
  expect_bad("{" + entry("a\\u001b[2J\\u0007\x7f\xc2\x9b\xe2\x80\xae", "F32", "[3]", 0, 16) + "}", 16, Errc::size_mismatch,
             "tensor 'a\\x1b[2J\\x07\\x7f\\u009b\\u202e': shape [3] of F32 is 12 bytes, but data_offsets [0, 16] hold 16");
  const std::string name(100'000, 'n');
  expect_bad("{" + entry(name, "F32", "[3]", 0, 16) + "}", 16, Errc::size_mismatch,
             "tensor '" + name.substr(0, 160) + "... (100000 bytes)': shape [3] of F32 is 12 bytes, but data_offsets [0, 16] hold 16");
  std::string dims = "[\"x\"";
  for (int i = 0; i < 10'000; ++i) dims += ",1";
  const std::string shown = "[\"x\"" + [] {
    std::string s;
    for (int i = 0; i < 53; ++i) s += ", 1";
    return s;
  }() + ", ...]";
  expect_bad("{" + entry("w", "U8", dims + "]", 0, 0) + "}", 0, Errc::invalid_shape,
             "tensor 'w': shape " + shown + ": dimension 0 is not a non-negative integer");
  // Error::tensor() keeps the name as it is, for code that compares it.
  auto h = sts::parse_header("f", "{" + entry("a\\u001bb", "F32", "[3]", 0, 16) + "}", 16);
  REQUIRE_FALSE(h);
  CHECK(h.error().tensor() == "a\x1b" "b");
  CHECK(h.error().message().rfind("f: tensor 'a\\x1bb': ", 0) == 0);
  CHECK(sts::detail::printable("ok \xff\xc0\xaf end") == "ok \\xff\\xc0\\xaf end");
  CHECK(sts::detail::printable("tab\there") == "tab\\x09here");
  CHECK(sts::detail::printable("caf\xc3\xa9 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xf0\x9f\x98\x80");
  CHECK(sts::detail::printable(std::string(10, 'x'), 4) == "xxxx... (10 bytes)");
}

TEST_CASE("a FIFO or a directory as the checkpoint is refused without waiting") {
  TempDir dir;
  const std::string fifo = dir / "fifo.safetensors";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto c = sts::Checkpoint::open(fifo);  // before the fix: blocked in open(2) for a writer
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::io_error);
  CHECK(c.error().message() == fifo + ": is a FIFO, not a regular file");
  c = sts::Checkpoint::open(dir.path());
  REQUIRE_FALSE(c);
  CHECK(c.error().code() == Errc::io_error);
  CHECK(c.error().message() == dir.path() + ": is a directory, not a regular file");
}
