// SPDX-License-Identifier: MIT
// Device queries with the default configuration: one device of 32 GiB.
#include "check.hpp"

#include <cstring>
#include <thread>

TEST_CASE("one device by default", "[devices]") {
    int n = 0;
    HIP_OK(hipGetDeviceCount(&n));
    CHECK(n == 1);
    int d = -1;
    HIP_OK(hipGetDevice(&d));
    CHECK(d == 0);
    HIP_OK(hipSetDevice(0));
    CHECK(hipSetDevice(1) == hipErrorInvalidDevice);
    CHECK(hipSetDevice(-1) == hipErrorInvalidDevice);
    CHECK(hipGetDeviceCount(nullptr) == hipErrorInvalidValue);
    CHECK(hipGetDevice(nullptr) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("device properties", "[devices]") {
    hipDeviceProp_t p;
    HIP_OK(hipGetDeviceProperties(&p, 0));
    CHECK(std::string(p.name) == "hip-cpu device 0");
    CHECK(p.totalGlobalMem == std::size_t(32768) << 20);
    CHECK(p.pciBusID == 0);
    CHECK(p.pciDomainID == 0);
    CHECK(p.canMapHostMemory == 1);
    CHECK(p.unifiedAddressing == 1);
    CHECK(p.managedMemory == 1);
    CHECK(p.multiProcessorCount >= 1);
    CHECK(p.asyncEngineCount >= 1);
    CHECK(hipGetDeviceProperties(&p, 1) == hipErrorInvalidDevice);
    CHECK(hipGetDeviceProperties(nullptr, 0) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("PCI bus id", "[devices]") {
    char buf[64];
    HIP_OK(hipDeviceGetPCIBusId(buf, sizeof buf, 0));
    CHECK(std::string(buf) == "0000:00:00.0");
    HIP_OK(hipDeviceGetPCIBusId(buf, 13, 0));  // exactly fits with its NUL
    CHECK(hipDeviceGetPCIBusId(buf, 12, 0) == hipErrorInvalidValue);
    CHECK(hipDeviceGetPCIBusId(buf, sizeof buf, 3) == hipErrorInvalidDevice);
    CHECK(hipDeviceGetPCIBusId(nullptr, 10, 0) == hipErrorInvalidValue);
    (void)hipGetLastError();
}

TEST_CASE("memory info", "[devices]") {
    size_t free = 0, total = 0;
    HIP_OK(hipMemGetInfo(&free, &total));
    CHECK(total == std::size_t(32768) << 20);
    CHECK(free <= total);
    CHECK(hipMemGetInfo(nullptr, &total) == hipErrorInvalidValue);
    (void)hipGetLastError();
}
