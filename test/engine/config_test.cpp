// SPDX-License-Identifier: MIT
// Configuration: size and boolean parsing, the environment, and correct data under every
// shape of the engine (threads, chunk size, depth, inline threshold).
#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../c_api/helpers.hpp"
#include "io/config.hpp"
#include "runtime/env.hpp"
#include "staging/engine.hpp"

using namespace hipfile::test;
using hipfile::engine::Config;
using hipfile::engine::parse_bool;
using hipfile::engine::parse_size;
using hipfile::engine::WaitMode;

TEST_CASE("parse_size takes plain numbers and binary suffixes, and refuses the rest", "[config]") {
  std::size_t v = 0;
  CHECK((parse_size("4096", v) && v == 4096));
  CHECK((parse_size("512k", v) && v == 512u << 10));
  CHECK((parse_size("4M", v) && v == 4u << 20));
  CHECK((parse_size("4MiB", v) && v == 4u << 20));
  CHECK((parse_size("1g", v) && v == 1u << 30));
  CHECK((parse_size("2T", v) && v == 2ull << 40));
  for (const char* bad : {"", "-1", "4X", "M", "4 M", "99999999999999999999", "20000000000000T", "4Mx"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_size(bad, v));
  }
  CHECK_FALSE(parse_size(nullptr, v));
}

TEST_CASE("Numbers are parsed with overflow checks, never wrapped", "[config]") {
  std::size_t v = 0;
  for (const char* bad : {" 4", "+4", "\t4k", "18446744073709551616", "18446744073709551617k"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_size(bad, v));
    CHECK_FALSE(hipfile::engine::parse_count(bad, v));
  }
  CHECK((hipfile::engine::parse_count("18446744073709551615", v) && v == SIZE_MAX));
  CHECK_FALSE(hipfile::engine::parse_count("4k", v));
  // 2^32 + 1 threads is out of range, not one thread.
  ::unsetenv("HIPFILE_ASYNC_THREADS");
  const unsigned automatic = hipfile::engine::Config::from_environment().effective_async_threads();
  // Automatic: one per core, 8-16.
  CHECK(automatic == std::clamp(std::thread::hardware_concurrency(), 8u, 16u));
  std::vector<hipfile::engine::Config::Problem> problems;
  ::setenv("HIPFILE_ASYNC_THREADS", "4294967297", 1);
  CHECK(hipfile::engine::Config::from_environment(&problems).effective_async_threads() == automatic);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].message == "ignoring HIPFILE_ASYNC_THREADS=\"4294967297\": expected 1-256");
  ::setenv("HIPFILE_ASYNC_THREADS", "3", 1);
  CHECK(hipfile::engine::Config::from_environment().effective_async_threads() == 3);
  ::unsetenv("HIPFILE_ASYNC_THREADS");
}

TEST_CASE("HIPFILE_UNSUPPORTED_FILE_SYSTEMS is read with the other knobs", "[config]") {
  ::unsetenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS");
  CHECK_FALSE(hipfile::engine::Config::from_environment().unsupported_file_systems);
  ::setenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "yes", 1);
  CHECK(hipfile::engine::Config::from_environment().unsupported_file_systems);
  std::vector<hipfile::engine::Config::Problem> problems;
  ::setenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS", "maybe", 1);
  CHECK_FALSE(hipfile::engine::Config::from_environment(&problems).unsupported_file_systems);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].key == "HIPFILE_UNSUPPORTED_FILE_SYSTEMS=maybe");
  ::unsetenv("HIPFILE_UNSUPPORTED_FILE_SYSTEMS");
}

TEST_CASE("A privileged process reads no knob, and ignores path knobs with a warning", "[config][env]") {
  ::setenv("HIPFILE_CUFILE_LIBRARY", "/tmp/evil.so", 1);
  ::setenv("HIPFILE_LOG_FILE", "/root/owned.log", 1);
  ::setenv("HIPFILE_LOG_DIR", "/root", 1);
  ::setenv("HIPFILE_STATS_FILE", "/etc/shadow", 1);
  ::setenv("HIPFILE_THREADS", "3", 1);
  ::setenv("HIPFILE_LOG_LEVEL", "TRACE", 1);
  {
    Config plain = Config::from_environment();
    CHECK(plain.cufile_library == "/tmp/evil.so");  // an ordinary process takes them
    CHECK(plain.threads == 3);
  }
  hipfile::engine::env::set_privileged_for_test(true);
  std::vector<Config::Problem> problems;
  Config c = Config::from_environment(&problems);
  hipfile::engine::env::set_privileged_for_test(false);
  CHECK(c.cufile_library.empty());
  CHECK(c.log_file.empty());
  CHECK(c.log_dir.empty());
  CHECK(c.stats_file.empty());
  CHECK(c.threads == Config{}.threads);  // secure_getenv: no knob at all
  CHECK(c.log_level == Config{}.log_level);
  std::set<std::string> warned;
  for (const auto& p : problems) warned.insert(p.key);
  for (const char* name : {"HIPFILE_CUFILE_LIBRARY", "HIPFILE_LOG_FILE", "HIPFILE_LOG_DIR", "HIPFILE_STATS_FILE"}) {
    CAPTURE(name);
    CHECK(warned.count(std::string("privileged:") + name) == 1);
  }
  for (const char* name : {"HIPFILE_CUFILE_LIBRARY", "HIPFILE_LOG_FILE", "HIPFILE_LOG_DIR", "HIPFILE_STATS_FILE",
                           "HIPFILE_THREADS", "HIPFILE_LOG_LEVEL"})
    ::unsetenv(name);
}

TEST_CASE("parse_bool takes true/false/1/0/yes/no/on/off in any case", "[config]") {
  bool b = false;
  for (const char* t : {"true", "TRUE", "1", "yes", "Yes", "on"}) CHECK((parse_bool(t, b) && b));
  for (const char* f : {"false", "False", "0", "no", "NO", "off"}) CHECK((parse_bool(f, b) && !b));
  for (const char* bad : {"", "2", "ya", "truee"}) CHECK_FALSE(parse_bool(bad, b));
}

TEST_CASE("Malformed environment values are ignored and defaults kept", "[config]") {
  ::setenv("HIPFILE_CHUNK_SIZE", "lots", 1);
  ::setenv("HIPFILE_ALLOW_COMPAT_MODE", "maybe", 1);
  ::setenv("HIPFILE_THREADS", "100000", 1);
  Config c = Config::from_environment();
  ::unsetenv("HIPFILE_CHUNK_SIZE");
  ::unsetenv("HIPFILE_ALLOW_COMPAT_MODE");
  ::unsetenv("HIPFILE_THREADS");
  Config d;
  CHECK(c.chunk_size == d.chunk_size);
  CHECK(c.allow_compat == d.allow_compat);
  CHECK(c.threads == d.threads);
}

TEST_CASE("Well-formed environment values are applied", "[config]") {
  ::setenv("HIPFILE_CHUNK_SIZE", "100k", 1);  // rounded up to 4 KiB
  ::setenv("HIPFILE_THREADS", "3", 1);
  ::setenv("HIPFILE_FORCE_ODIRECT", "1", 1);
  ::setenv("HIPFILE_WAIT", "block", 1);
  Config c = Config::from_environment();
  ::unsetenv("HIPFILE_CHUNK_SIZE");
  ::unsetenv("HIPFILE_THREADS");
  ::unsetenv("HIPFILE_FORCE_ODIRECT");
  ::unsetenv("HIPFILE_WAIT");
  CHECK(c.chunk_size == 102400);
  CHECK(c.threads == 3);
  CHECK(c.effective_threads() == 3);
  CHECK(c.effective_caller_lanes() == 3);  // set workers set the callers' lanes too
  CHECK(c.force_odirect);
  CHECK(c.wait == WaitMode::block);
  CHECK(c.prefetch_window == std::size_t{128} << 20);  // a fixed choice, whatever the environment
}

TEST_CASE("automatic workers are the cores up to 12; callers' lanes the cores up to 16", "[config]") {
  const unsigned hw = std::thread::hardware_concurrency();
  const Config automatic{};
  CHECK(automatic.effective_threads() == std::clamp(hw == 0 ? 4u : hw, 2u, 12u));
  CHECK(automatic.effective_caller_lanes() == std::clamp(hw == 0 ? 4u : hw, 2u, 16u));
  const Config shaped = hipfile::engine::shape_engine(automatic);
  CHECK(shaped.threads == automatic.effective_threads());
  CHECK(shaped.inline_lanes == automatic.effective_caller_lanes());
}

TEST_CASE("HIPFILE_WAIT chooses how workers wait", "[config]") {
  CHECK(Config{}.wait == WaitMode::poll);
  struct Case {
    const char* wait;  // HIPFILE_WAIT, or null
    WaitMode expected;
  };
  const Case c = GENERATE(Case{"poll", WaitMode::poll}, Case{"block", WaitMode::block}, Case{"spin", WaitMode::spin},
                          Case{nullptr, WaitMode::poll});
  CAPTURE(c.wait ? c.wait : "(unset)");
  if (c.wait) ::setenv("HIPFILE_WAIT", c.wait, 1);
  std::vector<Config::Problem> problems;
  const Config got = Config::from_environment(&problems);
  ::unsetenv("HIPFILE_WAIT");
  CHECK(got.wait == c.expected);
  CHECK(problems.empty());
}

TEST_CASE("A HIPFILE_ variable the library does not read is named, a retired one as retired", "[config]") {
  ::setenv("HIPFILE_THREAD", "4", 1);          // a typo of HIPFILE_THREADS
  ::setenv("HIPFILE_BLOCKING_WAIT", "1", 1);   // retired: HIPFILE_WAIT=block took its place
  ::setenv("HIPFILE_MAP_ALONE", "1", 1);       // retired: the read-path tuner chooses
  const char* run_dir = std::getenv("HIPFILE_TEST_DIR");
  const std::string kept = run_dir ? run_dir : "";
  ::setenv("HIPFILE_TEST_DIR", "/tmp", 1);     // the test suite's, not the library's
  ::setenv("HIPFILE_STRESS_SECONDS", "1", 1);  // likewise
  std::vector<Config::Problem> problems;
  const Config got = Config::from_environment(&problems);
  std::vector<Config::Problem> privileged;
  hipfile::engine::env::set_privileged_for_test(true);
  (void)Config::from_environment(&privileged);
  hipfile::engine::env::set_privileged_for_test(false);
  for (const char* name : {"HIPFILE_THREAD", "HIPFILE_BLOCKING_WAIT", "HIPFILE_MAP_ALONE", "HIPFILE_STRESS_SECONDS"})
    ::unsetenv(name);
  if (run_dir) ::setenv("HIPFILE_TEST_DIR", kept.c_str(), 1);
  else ::unsetenv("HIPFILE_TEST_DIR");
  CHECK(got.threads == Config{}.threads);
  CHECK(got.wait == WaitMode::poll);
  CHECK(got.map_alone == Config{}.map_alone);
  std::set<std::string> keys;
  for (const auto& p : problems) keys.insert(p.key);
  CHECK(keys == std::set<std::string>{"unknown:HIPFILE_THREAD", "retired:HIPFILE_BLOCKING_WAIT", "retired:HIPFILE_MAP_ALONE"});
  for (const auto& p : problems) {
    CAPTURE(p.key);
    if (p.key == "unknown:HIPFILE_THREAD")
      CHECK(p.message == "ignoring HIPFILE_THREAD: not a setting of this library (doc/configuration.md lists them)");
    if (p.key == "retired:HIPFILE_BLOCKING_WAIT")
      CHECK(p.message == "ignoring HIPFILE_BLOCKING_WAIT: retired (set HIPFILE_WAIT=block)");
  }
  CHECK(privileged.empty());  // a privileged process reads no variable and names none
}

TEST_CASE("A malformed HIPFILE_WAIT is refused by name and the default kept", "[config]") {
  ::setenv("HIPFILE_WAIT", "sleepy", 1);
  std::vector<Config::Problem> problems;
  const Config got = Config::from_environment(&problems);
  ::unsetenv("HIPFILE_WAIT");
  CHECK(got.wait == WaitMode::poll);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].key == "HIPFILE_WAIT=sleepy");
  CHECK(problems[0].message == "ignoring HIPFILE_WAIT=\"sleepy\": expected spin, poll or block");
}

TEST_CASE("Every engine shape moves the same bytes", "[config]") {
  struct Shape {
    const char* threads;
    const char* chunk;
    const char* depth;
    const char* inline_threshold;
    const char* odirect;
    const char* wait;  // HIPFILE_WAIT
  };
  const Shape shape = GENERATE(Shape{"1", "64k", "1", "0", "0", "spin"}, Shape{"3", "64k", "4", "0", "1", "block"},
                               Shape{"2", "1M", "2", "16M", "0", "poll"}, Shape{"5", "256k", "3", "4k", "1", "poll"},
                               Shape{"4", "128k", "2", "4k", "0", "block"}, Shape{"3", "64k", "1", "4k", "0", "poll"});
  CAPTURE(shape.threads, shape.chunk, shape.depth, shape.inline_threshold, shape.odirect, shape.wait);
  ClosedDriver guard;
  ::setenv("HIPFILE_THREADS", shape.threads, 1);
  ::setenv("HIPFILE_CHUNK_SIZE", shape.chunk, 1);
  ::setenv("HIPFILE_STAGING_DEPTH", shape.depth, 1);
  ::setenv("HIPFILE_INLINE_THRESHOLD", shape.inline_threshold, 1);
  ::setenv("HIPFILE_FORCE_ODIRECT", shape.odirect, 1);
  ::setenv("HIPFILE_WAIT", shape.wait, 1);
  const std::size_t n = (5u << 20) + 4097;
  TempFile f(n, 81);
  {
    Registered r(f.path(), O_RDWR);
    DeviceMem mem(n);
    REQUIRE(hipFileRead(r.handle, mem.get(), n - 3, 3, 0) == static_cast<ssize_t>(n - 3));
    CHECK(to_host(mem.get(), n - 3) == pattern(n - 3, 81, 3));
    to_device(mem.get(), pattern(n, 82));
    REQUIRE(hipFileWrite(r.handle, mem.get(), n - 8192, 8192, 0) == static_cast<ssize_t>(n - 8192));
  }
  for (const char* v : {"HIPFILE_THREADS", "HIPFILE_CHUNK_SIZE", "HIPFILE_STAGING_DEPTH",
                        "HIPFILE_INLINE_THRESHOLD", "HIPFILE_FORCE_ODIRECT", "HIPFILE_WAIT"})
    ::unsetenv(v);
  auto file = read_file(f.path());
  CHECK(std::vector<std::byte>(file.begin(), file.begin() + 8192) == pattern(8192, 81));
  CHECK(std::vector<std::byte>(file.begin() + 8192, file.end()) == pattern(n - 8192, 82));
}
