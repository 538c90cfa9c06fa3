// SPDX-License-Identifier: MIT
// hipFileStreamRegister / Deregister: flags, errors, the NULL stream, no implicit driver open.
#include "common.hpp"

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

TEST_CASE("a destroyed and recreated stream handle registers again after deregistration") {
  hipStream_t s = nullptr;
  HIP_CHECK(hipStreamCreate(&s));
  HF_OK(hipFileStreamRegister(s, 3));
  HF_OK(hipFileStreamDeregister(s));
  HIP_CHECK(hipStreamDestroy(s));
}
