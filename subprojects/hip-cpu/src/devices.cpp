// SPDX-License-Identifier: MIT
// Device enumeration, the per-thread current device, properties, versions.
#include "internal.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kMaxDevices = 16;
constexpr long kDefaultDeviceMemoryMb = 32768;

struct Config {
    int devices = 1;
    std::size_t capacity = std::size_t(kDefaultDeviceMemoryMb) << 20;
};

// Parse a decimal environment variable; nullopt when unset or malformed (malformed is reported,
// since a silently ignored setting makes a CI run test something other than intended).
std::optional<long> env_long(const char *name) {
    const char *v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    char *end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (*end != '\0' || n < 0) {
        std::fprintf(stderr, "hip-cpu: ignoring malformed %s=%s\n", name, v);
        return std::nullopt;
    }
    return n;
}

// Read lazily at the first call, not at load time, so a test can setenv() before it touches HIP.
const Config &config() {
    static const Config c = [] {
        Config r;
        if (auto n = env_long("HIPCPU_DEVICE_COUNT")) {
            if (*n > kMaxDevices)
                std::fprintf(stderr, "hip-cpu: HIPCPU_DEVICE_COUNT=%ld capped at %d\n", *n, kMaxDevices);
            r.devices = int(std::min<long>(*n, kMaxDevices));
        }
        if (auto mb = env_long("HIPCPU_DEVICE_MEMORY_MB")) r.capacity = std::size_t(*mb) << 20;
        return r;
    }();
    return c;
}

thread_local int current = 0;

}  // namespace

namespace hipcpu {

int device_count() noexcept { return config().devices; }
std::size_t device_capacity() noexcept { return config().capacity; }
bool valid_device(int dev) noexcept { return dev >= 0 && dev < device_count(); }
int current_device() noexcept { return current; }
void set_current_device(int dev) noexcept { current = dev; }

}  // namespace hipcpu

using hipcpu::ret;

namespace hipcpu {

// The one description of a device: hipGetDeviceProperties and hipDeviceGetAttribute read it.
void fill_properties(hipDeviceProp_t &props, int deviceId) noexcept {
    hipDeviceProp_t *prop = &props;
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "hip-cpu device %d", deviceId);
    std::snprintf(prop->gcnArchName, sizeof prop->gcnArchName, "cpu");
    prop->totalGlobalMem = hipcpu::device_capacity();
    // Plausible values of a modern GPU, so code that sizes work by them behaves normally.
    prop->sharedMemPerBlock = 64 * 1024;
    prop->regsPerBlock = 65536;
    prop->warpSize = 64;
    prop->memPitch = std::size_t(1) << 31;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = prop->maxThreadsDim[2] = 1024;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65536;
    prop->clockRate = 1000000;
    prop->totalConstMem = 64 * 1024;
    prop->major = 9;
    prop->minor = 0;
    prop->textureAlignment = 256;
    prop->deviceOverlap = 1;
    prop->multiProcessorCount = 1;
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->pciDomainID = 0;
    prop->pciBusID = deviceId;
    prop->pciDeviceID = 0;
    prop->asyncEngineCount = 1;  // one worker thread per stream; copies overlap across streams
    prop->unifiedAddressing = 1;
    prop->memoryClockRate = 1000000;
    prop->memoryBusWidth = 64;
    prop->l2CacheSize = 4 * 1024 * 1024;
    prop->maxThreadsPerMultiProcessor = 2048;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->pageableMemoryAccess = 0;
    prop->isMultiGpuBoard = 0;
}

}  // namespace hipcpu

extern "C" {

hipError_t hipInit(unsigned int flags) {
    HIPCPU_ENTER();
    if (flags != 0) return ret(hipErrorInvalidValue);
    return ret(hipcpu::device_count() == 0 ? hipErrorNoDevice : hipSuccess);
}

hipError_t hipRuntimeGetVersion(int *runtimeVersion) {
    HIPCPU_ENTER();
    if (runtimeVersion == nullptr) return ret(hipErrorInvalidValue);
    *runtimeVersion = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipDriverGetVersion(int *driverVersion) {
    HIPCPU_ENTER();
    if (driverVersion == nullptr) return ret(hipErrorInvalidValue);
    *driverVersion = HIP_VERSION;
    return hipSuccess;
}

hipError_t hipGetDeviceCount(int *count) {
    HIPCPU_ENTER();
    if (count == nullptr) return ret(hipErrorInvalidValue);
    *count = hipcpu::device_count();
    return ret(*count == 0 ? hipErrorNoDevice : hipSuccess);
}

hipError_t hipGetDevice(int *deviceId) {
    HIPCPU_ENTER();
    if (deviceId == nullptr) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    *deviceId = hipcpu::current_device();
    return hipSuccess;
}

hipError_t hipSetDevice(int deviceId) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    if (!hipcpu::valid_device(deviceId)) return ret(hipErrorInvalidDevice);
    hipcpu::set_current_device(deviceId);
    return hipSuccess;
}

hipError_t hipDeviceSynchronize(void) {
    HIPCPU_ENTER();
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    return ret(hipcpu::synchronize_device(hipcpu::current_device()));
}

hipError_t hipGetDeviceProperties(hipDeviceProp_t *prop, int deviceId) {
    HIPCPU_ENTER();
    if (prop == nullptr) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    if (!hipcpu::valid_device(deviceId)) return ret(hipErrorInvalidDevice);
    hipcpu::fill_properties(*prop, deviceId);
    return hipSuccess;
}

hipError_t hipDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    HIPCPU_ENTER();
    if (pciBusId == nullptr || len <= 0) return ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return ret(hipErrorNoDevice);
    if (!hipcpu::valid_device(device)) return ret(hipErrorInvalidDevice);
    // Same shape as a real one ("0000:03:00.0"); the bus number is the device id, as in props.
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", 0, device, 0);
    if (n < 0 || n >= len) return ret(hipErrorInvalidValue);
    std::memcpy(pciBusId, buf, std::size_t(n) + 1);
    return hipSuccess;
}

}  // extern "C"
