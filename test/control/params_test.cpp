// SPDX-License-Identifier: MIT
// Parameters (cuFile semantics), driver properties, DriverSet* setters, environment handling and
// logging. Every test starts and ends with the driver closed and nothing staged.
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "../c_api/helpers.hpp"

using namespace hipfile::test;

namespace {

constexpr hipFileOpError_t ok = hipFileSuccess;

// Closed, with no staged values: the last close drops whatever a previous test staged.
struct Fresh : ClosedDriver {
  Fresh() {
    REQUIRE(hipFileDriverOpen().err == ok);
    REQUIRE(hipFileDriverClose().err == ok);
  }
};

size_t get_size(hipFileSizeTConfigParameter_t p) {
  size_t v = 12345;
  REQUIRE(hipFileGetParameterSizeT(p, &v).err == ok);
  return v;
}
bool get_bool(hipFileBoolConfigParameter_t p) {
  bool v = false;
  REQUIRE(hipFileGetParameterBool(p, &v).err == ok);
  return v;
}
std::string get_string(hipFileStringConfigParameter_t p) {
  char buf[4096];
  REQUIRE(hipFileGetParameterString(p, buf, sizeof buf).err == ok);
  return buf;
}
hipFileDriverProps_t props() {
  hipFileDriverProps_t p{};
  REQUIRE(hipFileDriverGetProperties(&p).err == ok);
  return p;
}
std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

// Writes `n` bytes of a pattern from device memory and reads them back into fresh device memory.
void round_trip(size_t n) {
  TempFile file;
  Registered r(file.path(), O_RDWR);
  DeviceMem src(n), dst(n);
  auto bytes = pattern(n, 99);
  to_device(src.get(), bytes);
  fill_device(dst.get(), 0, n);
  REQUIRE(hipFileWrite(r.handle, src.get(), n, 0, 0) == static_cast<ssize_t>(n));
  REQUIRE(hipFileRead(r.handle, dst.get(), n, 0, 0) == static_cast<ssize_t>(n));
  REQUIRE(to_host(dst.get(), n) == bytes);
  REQUIRE(read_file(file.path()) == bytes);
}

struct SizeCase {
  hipFileSizeTConfigParameter_t p;
  size_t value;
};
const SizeCase kSizes[] = {
    {hipFileParamProfileStats, 3},
    {hipFileParamExecutionMaxIOQueueDepth, 5},
    {hipFileParamExecutionMaxIOThreads, 3},
    {hipFileParamExecutionMinIOThresholdSizeKB, 256},
    {hipFileParamExecutionMaxRequestParallelism, 2},
    {hipFileParamPropertiesMaxDirectIOSizeKB, 512},
    {hipFileParamPropertiesMaxDeviceCacheSizeKB, 4096},
    {hipFileParamPropertiesPerBufferCacheSizeKB, 64},
    {hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 1u << 20},
    {hipFileParamPropertiesIOBatchsize, 64},
    {hipFileParamPollthresholdSizeKB, 16},
    {hipFileParamPropertiesBatchIOTimeoutMs, 250},
};
const hipFileBoolConfigParameter_t kBools[] = {
    hipFileParamPropertiesUsePollMode, hipFileParamPropertiesAllowCompatMode, hipFileParamForceCompatMode,
    hipFileParamFsMiscApiCheckAggressive, hipFileParamExecutionParallelIO, hipFileParamProfileNvtx,
    hipFileParamPropertiesAllowSystemMemory, hipFileParamUsePcip2pdma, hipFileParamPreferIOUring,
    hipFileParamForceOdirectMode, hipFileParamSkipTopologyDetection, hipFileParamStreamMemopsBypass,
};

}  // namespace

TEST_CASE("Every size parameter is staged, refused while open, applied, and reset", "[params]") {
  Fresh fresh;
  for (const SizeCase& c : kSizes) {
    INFO("parameter " << c.p);
    const size_t def = get_size(c.p);
    REQUIRE(def != c.value);
    REQUIRE(hipFileSetParameterSizeT(c.p, c.value).err == ok);
    CHECK(get_size(c.p) == c.value);  // staged, visible while closed
    REQUIRE(hipFileDriverOpen().err == ok);
    CHECK(get_size(c.p) == c.value);  // applied
    CHECK(hipFileSetParameterSizeT(c.p, def).err == hipFileDriverAlreadyOpen);
    CHECK(get_size(c.p) == c.value);
    REQUIRE(hipFileDriverClose().err == ok);
    CHECK(get_size(c.p) == def);  // reset at the last close
  }
}

TEST_CASE("Every bool parameter is staged, refused while open, applied, and reset", "[params]") {
  Fresh fresh;
  for (auto p : kBools) {
    INFO("parameter " << p);
    const bool def = get_bool(p);
    REQUIRE(hipFileSetParameterBool(p, !def).err == ok);
    CHECK(get_bool(p) == !def);
    REQUIRE(hipFileDriverOpen().err == ok);
    CHECK(get_bool(p) == !def);
    CHECK(hipFileSetParameterBool(p, def).err == hipFileDriverAlreadyOpen);
    REQUIRE(hipFileDriverClose().err == ok);
    CHECK(get_bool(p) == def);
  }
}

TEST_CASE("String parameters round-trip and reset; a short buffer is refused", "[params]") {
  Fresh fresh;
  CHECK(get_string(hipFileParamLoggingLevel) == "WARN");
  CHECK(get_string(hipFileParamLogDir).empty());
  TempFile log;
  REQUIRE(hipFileSetParameterString(hipFileParamLoggingLevel, "debug").err == ok);
  REQUIRE(hipFileSetParameterString(hipFileParamEnvLogfilePath, log.c_str()).err == ok);
  REQUIRE(hipFileSetParameterString(hipFileParamLogDir, "/tmp").err == ok);
  CHECK(get_string(hipFileParamLoggingLevel) == "DEBUG");
  CHECK(get_string(hipFileParamEnvLogfilePath) == log.path());
  CHECK(get_string(hipFileParamLogDir) == "/tmp");

  char small[4];
  CHECK(hipFileGetParameterString(hipFileParamLoggingLevel, small, sizeof small).err == hipFileInvalidValue);
  char exact[6];  // "DEBUG" and its NUL
  CHECK(hipFileGetParameterString(hipFileParamLoggingLevel, exact, sizeof exact).err == ok);
  CHECK(std::string(exact) == "DEBUG");

  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(get_string(hipFileParamLoggingLevel) == "DEBUG");
  CHECK(hipFileSetParameterString(hipFileParamLoggingLevel, "ERROR").err == hipFileDriverAlreadyOpen);
  REQUIRE(hipFileDriverClose().err == ok);
  CHECK(get_string(hipFileParamLoggingLevel) == "WARN");
  CHECK(get_string(hipFileParamEnvLogfilePath).empty());
}

TEST_CASE("Parameter bad input", "[params]") {
  Fresh fresh;
  size_t s;
  bool b;
  char buf[64];
  CHECK(hipFileGetParameterSizeT(hipFileParamProfileStats, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterBool(hipFileParamForceCompatMode, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterString(hipFileParamLogDir, nullptr, 64).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterString(hipFileParamLogDir, buf, 0).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterString(hipFileParamLogDir, buf, -1).err == hipFileInvalidValue);
  auto bad_size = static_cast<hipFileSizeTConfigParameter_t>(99);
  auto bad_bool = static_cast<hipFileBoolConfigParameter_t>(-1);
  auto bad_string = static_cast<hipFileStringConfigParameter_t>(7);
  CHECK(hipFileGetParameterSizeT(bad_size, &s).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(bad_size, 1).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterBool(bad_bool, &b).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterBool(bad_bool, true).err == hipFileInvalidValue);
  CHECK(hipFileGetParameterString(bad_string, buf, sizeof buf).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterString(bad_string, "x").err == hipFileInvalidValue);
  CHECK(hipFileSetParameterString(hipFileParamLogDir, nullptr).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterString(hipFileParamLoggingLevel, "LOUD").err == hipFileInvalidValue);
  // Out of range: nothing is staged.
  CHECK(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOQueueDepth, 0).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(hipFileParamProfileStats, 4).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, 4).err == hipFileInvalidValue);
  CHECK(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 100000).err == hipFileInvalidValue);
  CHECK(get_size(hipFileParamExecutionMaxIOQueueDepth) == 2);
  CHECK(get_size(hipFileParamExecutionMaxIOThreads) == 0);
}

TEST_CASE("Staged parameters take effect: one thread, 64 KiB chunks, no inline requests", "[params]") {
  Fresh fresh;
  REQUIRE(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOThreads, 1).err == ok);
  REQUIRE(hipFileSetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, 64).err == ok);
  REQUIRE(hipFileSetParameterSizeT(hipFileParamExecutionMinIOThresholdSizeKB, 0).err == ok);
  REQUIRE(hipFileSetParameterSizeT(hipFileParamExecutionMaxIOQueueDepth, 1).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(props().nvfs.max_direct_io_size == 64);
  CHECK(get_size(hipFileParamExecutionMaxIOThreads) == 1);
  round_trip((1u << 20) + 4096 * 3 + 37);
  round_trip(100000);
  REQUIRE(hipFileDriverClose().err == ok);
  CHECK(props().nvfs.max_direct_io_size == 4096);
}

TEST_CASE("A tight pinned-memory limit still moves data correctly", "[params]") {
  Fresh fresh;
  REQUIRE(hipFileSetParameterSizeT(hipFileParamPropertiesMaxDevicePinnedMemSizeKB, 64).err == ok);
  REQUIRE(hipFileSetParameterSizeT(hipFileParamExecutionMinIOThresholdSizeKB, 0).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(props().max_device_pinned_mem_size == 64);
  round_trip((3u << 20) + 123);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("AllowCompatMode=false refuses device I/O; ParallelIO=false still moves data", "[params]") {
  Fresh fresh;
  REQUIRE(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK((props().nvfs.driver_control_flags & (1u << hipFileAllowCompatMode)) == 0);
  {
    TempFile file(4096);
    Registered r(file.path(), O_RDWR);
    DeviceMem dev(4096);
    CHECK(hipFileRead(r.handle, dev.get(), 4096, 0, 0) == -static_cast<ssize_t>(hipFileIODisabled));
  }
  REQUIRE(hipFileDriverClose().err == ok);
  REQUIRE(hipFileSetParameterBool(hipFileParamExecutionParallelIO, false).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK((props().feature_flags & (1u << hipFileParallelIOSupported)) == 0);
  round_trip(5u << 20);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Driver properties: defaults, NULL, open or closed", "[properties]") {
  Fresh fresh;
  CHECK(hipFileDriverGetProperties(nullptr).err == hipFileInvalidValue);
  hipFileDriverProps_t p = props();
  CHECK(hipFileUseCount() == 0);  // answering never opens the driver
  CHECK(p.nvfs.major_version == HIPFILE_VERSION_MAJOR);
  CHECK(p.nvfs.minor_version == HIPFILE_VERSION_MINOR);
  CHECK(p.nvfs.max_direct_io_size == 4096);
  CHECK(p.nvfs.poll_thresh_size == 4);
  CHECK(p.nvfs.driver_control_flags == (1u << hipFileAllowCompatMode));
  const unsigned features =
      (1u << hipFileBatchIOSupported) | (1u << hipFileStreamsSupported) | (1u << hipFileParallelIOSupported);
  CHECK(p.feature_flags == features);
  CHECK(p.max_device_cache_size == 131072);
  CHECK(p.per_buffer_cache_size == 1024);
  CHECK(p.max_device_pinned_mem_size == 33554432);
  CHECK(p.max_batch_io_count == 128);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(props().feature_flags == features);
  CHECK(hipFileDriverGetProperties(nullptr).err == hipFileInvalidValue);
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Driver setters: range errors", "[properties]") {
  Fresh fresh;
  const size_t huge = size_t{UINT_MAX} + 1;
  CHECK(hipFileDriverSetMaxDirectIOSize(0).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetMaxDirectIOSize(16).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetMaxDirectIOSize(2u << 20).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetMaxDirectIOSize(huge).err == hipFileDriverInvalidProps);
  CHECK(hipFileDriverSetMaxCacheSize(0).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetMaxCacheSize(huge).err == hipFileDriverInvalidProps);
  CHECK(hipFileDriverSetMaxPinnedMemSize(0).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetMaxPinnedMemSize(huge).err == hipFileDriverInvalidProps);
  CHECK(hipFileDriverSetPollMode(true, 0).err == hipFileDriverUnsupportedLimit);
  CHECK(hipFileDriverSetPollMode(true, huge).err == hipFileDriverInvalidProps);
  CHECK(props().nvfs.max_direct_io_size == 4096);  // nothing changed
  CHECK(hipFileUseCount() == 0);
}

TEST_CASE("Driver setters stage while closed and apply to the running driver while open", "[properties]") {
  Fresh fresh;
  REQUIRE(hipFileDriverSetMaxDirectIOSize(128).err == ok);
  REQUIRE(hipFileDriverSetMaxCacheSize(2048).err == ok);
  REQUIRE(hipFileDriverSetMaxPinnedMemSize(1u << 20).err == ok);
  REQUIRE(hipFileDriverSetPollMode(true, 8).err == ok);
  hipFileDriverProps_t p = props();
  CHECK(p.nvfs.max_direct_io_size == 128);
  CHECK(p.max_device_cache_size == 2048);
  CHECK(p.max_device_pinned_mem_size == 1u << 20);
  CHECK(p.nvfs.poll_thresh_size == 8);
  CHECK((p.nvfs.driver_control_flags & (1u << hipFileUsePollMode)) != 0);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(props().nvfs.max_direct_io_size == 128);
  round_trip(3u << 20);
  // While open: the running configuration changes, and later I/O uses the new chunk size.
  REQUIRE(hipFileDriverSetMaxDirectIOSize(256).err == ok);
  CHECK(props().nvfs.max_direct_io_size == 256);
  CHECK(get_size(hipFileParamPropertiesMaxDirectIOSizeKB) == 256);
  round_trip(3u << 20);
  REQUIRE(hipFileDriverClose().err == ok);
  p = props();
  CHECK(p.nvfs.max_direct_io_size == 4096);
  CHECK(p.max_device_cache_size == 131072);
  CHECK((p.nvfs.driver_control_flags & (1u << hipFileUsePollMode)) == 0);
}

TEST_CASE("Environment applies at open; parameters set through the API win over it", "[env]") {
  Fresh fresh;
  ::setenv("HIPFILE_THREADS", "3", 1);
  ::setenv("HIPFILE_CHUNK_SIZE", "256k", 1);
  CHECK(get_size(hipFileParamExecutionMaxIOThreads) == 3);
  REQUIRE(hipFileSetParameterSizeT(hipFileParamPropertiesMaxDirectIOSizeKB, 128).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(get_size(hipFileParamExecutionMaxIOThreads) == 3);
  CHECK(get_size(hipFileParamPropertiesMaxDirectIOSizeKB) == 128);
  REQUIRE(hipFileDriverClose().err == ok);
  CHECK(get_size(hipFileParamPropertiesMaxDirectIOSizeKB) == 256);
  ::unsetenv("HIPFILE_THREADS");
  ::unsetenv("HIPFILE_CHUNK_SIZE");
}

TEST_CASE("A malformed environment value is logged once, to the log file, and ignored", "[env][log]") {
  Fresh fresh;
  TempFile log;
  ::setenv("HIPFILE_LOG_FILE", log.c_str(), 1);
  ::setenv("HIPFILE_STAGING_DEPTH", "deep-ish", 1);
  ::setenv("HIPFILE_FORCE_ODIRECT", "perhaps", 1);
  for (int i = 0; i < 3; ++i) {
    REQUIRE(hipFileDriverOpen().err == ok);
    CHECK(get_size(hipFileParamExecutionMaxIOQueueDepth) == 2);
    CHECK_FALSE(get_bool(hipFileParamForceOdirectMode));
    REQUIRE(hipFileDriverClose().err == ok);
  }
  ::unsetenv("HIPFILE_STAGING_DEPTH");
  ::unsetenv("HIPFILE_FORCE_ODIRECT");
  ::unsetenv("HIPFILE_LOG_FILE");
  REQUIRE(hipFileDriverOpen().err == ok);  // back to stderr
  REQUIRE(hipFileDriverClose().err == ok);
  const std::string text = slurp(log.path());
  INFO(text);
  CHECK(count(text, "HIPFILE_STAGING_DEPTH=\"deep-ish\"") == 1);
  CHECK(count(text, "HIPFILE_FORCE_ODIRECT=\"perhaps\"") == 1);
  CHECK(count(text, "WARN") == 2);
  struct stat st{};
  REQUIRE(::stat(log.c_str(), &st) == 0);
}

TEST_CASE("Logging to a file honours the level", "[log]") {
  Fresh fresh;
  TempFile log;
  REQUIRE(hipFileSetParameterString(hipFileParamEnvLogfilePath, log.c_str()).err == ok);
  REQUIRE(hipFileSetParameterString(hipFileParamLoggingLevel, "ERROR").err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  REQUIRE(hipFileDriverClose().err == ok);
  CHECK(slurp(log.path()).empty());  // INFO lines are below ERROR

  REQUIRE(hipFileSetParameterString(hipFileParamEnvLogfilePath, log.c_str()).err == ok);
  REQUIRE(hipFileSetParameterString(hipFileParamLoggingLevel, "INFO").err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  REQUIRE(hipFileDriverClose().err == ok);
  const std::string text = slurp(log.path());
  INFO(text);
  CHECK(count(text, "INFO: driver open") == 1);
  CHECK(count(text, "INFO: driver closed") == 1);
  CHECK(count(text, "DEBUG") == 0);
  REQUIRE(hipFileDriverOpen().err == ok);  // logging returns to stderr at WARN
  REQUIRE(hipFileDriverClose().err == ok);
}

TEST_CASE("Forcing compat mode while forbidding it is a configuration error at open, not failed I/O", "[params][log]") {
  Fresh fresh;
  TempFile log;
  ::setenv("HIPFILE_LOG_FILE", log.c_str(), 1);
  REQUIRE(hipFileSetParameterBool(hipFileParamPropertiesAllowCompatMode, false).err == ok);
  REQUIRE(hipFileSetParameterBool(hipFileParamForceCompatMode, true).err == ok);
  REQUIRE(hipFileDriverOpen().err == ok);
  CHECK(get_bool(hipFileParamPropertiesAllowCompatMode));  // the forced compat path stays allowed
  round_trip(3u << 20);                                      // and I/O works
  REQUIRE(hipFileDriverClose().err == ok);
  ::unsetenv("HIPFILE_LOG_FILE");
  const std::string text = slurp(log.path());
  INFO(text);
  CHECK(count(text, "configuration error: compat mode is forced") == 1);
}
