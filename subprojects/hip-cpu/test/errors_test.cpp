// SPDX-License-Identifier: MIT
// Error names/strings, versions and the thread's last error.
#include "check.hpp"

#include <atomic>
#include <cstring>
#include <thread>

TEST_CASE("error names are HIP's identifiers", "[errors]") {
    CHECK(std::string(hipGetErrorName(hipSuccess)) == "hipSuccess");
    CHECK(std::string(hipGetErrorName(hipErrorInvalidValue)) == "hipErrorInvalidValue");
    CHECK(std::string(hipGetErrorName(hipErrorOutOfMemory)) == "hipErrorOutOfMemory");
    CHECK(std::string(hipGetErrorName(hipErrorMemoryAllocation)) == "hipErrorOutOfMemory");
    CHECK(std::string(hipGetErrorName(hipErrorNotReady)) == "hipErrorNotReady");
    CHECK(std::string(hipGetErrorName(hipErrorHostMemoryAlreadyRegistered)) == "hipErrorHostMemoryAlreadyRegistered");
    CHECK(std::string(hipGetErrorName(hipErrorInvalidResourceHandle)) == "hipErrorInvalidHandle");
    CHECK(std::string(hipGetErrorName(static_cast<hipError_t>(12345))) == "hipErrorUnknown");
}

TEST_CASE("error strings read like HIP's", "[errors]") {
    CHECK(std::string(hipGetErrorString(hipSuccess)) == "no error");
    CHECK(std::string(hipGetErrorString(hipErrorInvalidValue)) == "invalid argument");
    CHECK(std::string(hipGetErrorString(hipErrorOutOfMemory)) == "out of memory");
    CHECK(std::string(hipGetErrorString(hipErrorNotReady)) == "device not ready");
    CHECK(std::string(hipGetErrorString(static_cast<hipError_t>(12345))) == "unknown error");
}

TEST_CASE("numeric values match HIP", "[errors]") {
    STATIC_REQUIRE(hipErrorInvalidValue == 1);
    STATIC_REQUIRE(hipErrorNoDevice == 100);
    STATIC_REQUIRE(hipErrorInvalidHandle == 400);
    STATIC_REQUIRE(hipErrorNotFound == 500);
    STATIC_REQUIRE(hipErrorNotReady == 600);
    STATIC_REQUIRE(hipErrorHostMemoryAlreadyRegistered == 712);
    STATIC_REQUIRE(hipErrorHostMemoryNotRegistered == 713);
    STATIC_REQUIRE(hipErrorNotSupported == 801);
    STATIC_REQUIRE(hipErrorUnknown == 999);
    STATIC_REQUIRE(hipMemoryTypeDevice == 2);
    STATIC_REQUIRE(hipMemoryTypeManaged == 3);
    STATIC_REQUIRE(HIP_VERSION == 60200000);
}

TEST_CASE("versions report HIP 6.2", "[errors]") {
    int v = 0;
    HIP_OK(hipRuntimeGetVersion(&v));
    CHECK(v == HIP_VERSION);
    HIP_OK(hipDriverGetVersion(&v));
    CHECK(v == HIP_VERSION);
    CHECK(hipRuntimeGetVersion(nullptr) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("last error is sticky until read, per thread", "[errors]") {
    (void)hipGetLastError();
    CHECK(hipPeekAtLastError() == hipSuccess);
    CHECK(hipFree(reinterpret_cast<void *>(0x1234)) == hipErrorInvalidValue);
    void *p = nullptr;
    HIP_OK(hipMalloc(&p, 16));  // a later success does not clear it
    CHECK(hipPeekAtLastError() == hipErrorInvalidValue);
    CHECK(hipPeekAtLastError() == hipErrorInvalidValue);

    hipError_t other = hipErrorUnknown;
    std::thread([&] { other = hipPeekAtLastError(); }).join();
    CHECK(other == hipSuccess);

    CHECK(hipGetLastError() == hipErrorInvalidValue);
    CHECK(hipGetLastError() == hipSuccess);
    HIP_OK(hipFree(p));
}

TEST_CASE("hipErrorNotReady is a status, not a recorded error", "[errors]") {
    (void)hipGetLastError();
    hipEvent_t e;
    HIP_OK(hipEventCreate(&e));
    hipStream_t s;
    HIP_OK(hipStreamCreate(&s));
    static std::atomic<bool> go{false};
    HIP_OK(hipLaunchHostFunc(s, [](void *) { while (!go.load()) std::this_thread::yield(); }, nullptr));
    HIP_OK(hipEventRecord(e, s));
    CHECK(hipEventQuery(e) == hipErrorNotReady);
    CHECK(hipStreamQuery(s) == hipErrorNotReady);
    CHECK(hipGetLastError() == hipSuccess);
    go = true;
    HIP_OK(hipStreamSynchronize(s));
    HIP_OK(hipStreamDestroy(s));
    HIP_OK(hipEventDestroy(e));
}

TEST_CASE("hipInit", "[errors]") {
    HIP_OK(hipInit(0));
    CHECK(hipInit(1) == hipErrorInvalidValue);
    (void)hipGetLastError();
}
