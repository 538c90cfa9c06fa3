// SPDX-License-Identifier: MIT
// hipFileStreamRegister / Deregister: flags, errors, the NULL stream, no implicit driver open.
#include "common.hpp"

#include <vector>

using namespace hipfile::test;

TEST_CASE("stream registration: flags, twice, deregister") {
  REQUIRE(hipFileUseCount() == 0);
  Stream s;
  CHECK(hipFileStreamRegister(s, 0x10).err == hipFileInvalidValue);
  CHECK(hipFileStreamRegister(s, 0xffffffffu).err == hipFileInvalidValue);
  for (unsigned f = 0; f <= HIPFILE_STREAM_FLAGS_MASK; ++f) {
    HF_OK(hipFileStreamRegister(s, f));
    CHECK(hipFileStreamRegister(s, f).err == hipFileInvalidValue);
    HF_OK(hipFileStreamDeregister(s));
    CHECK(hipFileStreamDeregister(s).err == hipFileInvalidValue);
  }
  CHECK(hipFileUseCount() == 0);  // registration does not open the driver
}

TEST_CASE("the NULL stream can be registered") {
  HF_OK(hipFileStreamRegister(nullptr, HIPFILE_STREAM_FIXED_FILE_SIZE));
  CHECK(hipFileStreamRegister(nullptr, 0).err == hipFileInvalidValue);
  HF_OK(hipFileStreamDeregister(nullptr));
}

#ifdef __HIP_PLATFORM_CPU__
// Only hip-cpu validates stream handles; CUDA dereferences a garbage handle and crashes.
TEST_CASE("a bad stream is a HIP driver error") {
  int junk = 0;
  hipFileError_t e = hipFileStreamRegister(reinterpret_cast<hipStream_t>(&junk), 0);
  CHECK(e.err == hipFileHipDriverError);
  CHECK(e.hip_drv_err != hipSuccess);
  CHECK(hipFileStreamDeregister(reinterpret_cast<hipStream_t>(&junk)).err == hipFileInvalidValue);
  (void)hipGetLastError();
}
#endif

namespace {
// Creates streams until the runtime hands out `want` again (hip-cpu, like GPU runtimes, reuses a
// destroyed stream's handle); the others are destroyed. Null when none was.
hipStream_t create_stream_at(hipStream_t want) {
  std::vector<hipStream_t> others;
  hipStream_t found = nullptr;
  for (int i = 0; i < 16 && found == nullptr; ++i) {
    hipStream_t s = nullptr;
    HIP_CHECK(hipStreamCreate(&s));
    if (s == want) found = s;
    else others.push_back(s);
  }
  for (hipStream_t s : others) HIP_CHECK(hipStreamDestroy(s));
  return found;
}
}  // namespace

TEST_CASE("a destroyed and recreated stream handle registers again after deregistration") {
  hipStream_t first = nullptr;
  HIP_CHECK(hipStreamCreate(&first));
  HF_OK(hipFileStreamRegister(first, 3));
  HF_OK(hipFileStreamDeregister(first));
  HIP_CHECK(hipStreamDestroy(first));
  hipStream_t again = create_stream_at(first);
  if (again == nullptr) HIPFILE_SKIP("the runtime did not hand the destroyed stream's handle out again");
  // The same handle value, a new stream: it registers, with its own flags, exactly once.
  HF_OK(hipFileStreamRegister(again, 0));
  CHECK(hipFileStreamRegister(again, 0).err == hipFileInvalidValue);  // registered now
  CHECK(hipFileStreamRegister(again, 3).err == hipFileInvalidValue);
  HF_OK(hipFileStreamDeregister(again));
  CHECK(hipFileStreamDeregister(again).err == hipFileInvalidValue);  // and deregistered
  HIP_CHECK(hipStreamDestroy(again));
}
