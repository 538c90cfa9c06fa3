// SPDX-License-Identifier: MIT
// hipDeviceGetAttribute: each answer comes from the device's hipDeviceProp_t (so the two never
// disagree) or states what hip-cpu implements; an attribute it cannot answer truthfully is
// hipErrorInvalidValue rather than a guess.
#include "internal.hpp"

namespace {

// Attributes that are facts about hip-cpu rather than fields of hipDeviceProp_t.
bool implementation_fact(hipDeviceAttribute_t attr, int *out) {
    switch (attr) {
    case hipDeviceAttributeCanUseStreamWaitValue: *out = 1; return true;  // 32- and 64-bit waits
    case hipDeviceAttributeHostRegisterSupported: *out = 1; return true;
    case hipDeviceAttributeCanUseHostPointerForRegisteredMem: *out = 1; return true;  // same address
    case hipDeviceAttributeDirectManagedMemAccessFromHost: *out = 1; return true;
    case hipDeviceAttributeFineGrainSupport: *out = 1; return true;  // hipDeviceMallocFinegrained
    case hipDeviceAttributePageableMemoryAccessUsesHostPageTables: *out = 0; return true;
    case hipDeviceAttributeMemoryPoolsSupported: *out = 0; return true;              // no hipMallocAsync
    case hipDeviceAttributeVirtualMemoryManagementSupported: *out = 0; return true;  // no hipMem* VMM
    case hipDeviceAttributeImageSupport: *out = 0; return true;
    case hipDeviceAttributeEccEnabled: *out = 0; return true;
    case hipDeviceAttributeKernelExecTimeout: *out = 0; return true;
    case hipDeviceAttributeIsLargeBar: *out = 1; return true;  // the host reaches all device memory
    default: return false;
    }
}

int clamp(std::size_t v) { return v > 0x7fffffffu ? 0x7fffffff : static_cast<int>(v); }

bool from_properties(const hipDeviceProp_t &p, hipDeviceAttribute_t attr, int *out) {
    switch (attr) {
    case hipDeviceAttributeAsyncEngineCount: *out = p.asyncEngineCount; return true;
    case hipDeviceAttributeCanMapHostMemory: *out = p.canMapHostMemory; return true;
    case hipDeviceAttributeClockRate: *out = p.clockRate; return true;
    case hipDeviceAttributeComputeMode: *out = p.computeMode; return true;
    case hipDeviceAttributeConcurrentKernels: *out = p.concurrentKernels; return true;
    case hipDeviceAttributeConcurrentManagedAccess: *out = p.concurrentManagedAccess; return true;
    case hipDeviceAttributeDeviceOverlap: *out = p.deviceOverlap; return true;
    case hipDeviceAttributeIntegrated: *out = p.integrated; return true;
    case hipDeviceAttributeIsMultiGpuBoard: *out = p.isMultiGpuBoard; return true;
    case hipDeviceAttributeL2CacheSize: *out = p.l2CacheSize; return true;
    case hipDeviceAttributeComputeCapabilityMajor: *out = p.major; return true;
    case hipDeviceAttributeComputeCapabilityMinor: *out = p.minor; return true;
    case hipDeviceAttributeManagedMemory: *out = p.managedMemory; return true;
    case hipDeviceAttributeMaxBlockDimX: *out = p.maxThreadsDim[0]; return true;
    case hipDeviceAttributeMaxBlockDimY: *out = p.maxThreadsDim[1]; return true;
    case hipDeviceAttributeMaxBlockDimZ: *out = p.maxThreadsDim[2]; return true;
    case hipDeviceAttributeMaxGridDimX: *out = p.maxGridSize[0]; return true;
    case hipDeviceAttributeMaxGridDimY: *out = p.maxGridSize[1]; return true;
    case hipDeviceAttributeMaxGridDimZ: *out = p.maxGridSize[2]; return true;
    case hipDeviceAttributeMaxThreadsPerBlock: *out = p.maxThreadsPerBlock; return true;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: *out = p.maxThreadsPerMultiProcessor; return true;
    case hipDeviceAttributeMaxPitch: *out = clamp(p.memPitch); return true;
    case hipDeviceAttributeMemoryBusWidth: *out = p.memoryBusWidth; return true;
    case hipDeviceAttributeMemoryClockRate: *out = p.memoryClockRate; return true;
    case hipDeviceAttributeMultiprocessorCount: *out = p.multiProcessorCount; return true;
    case hipDeviceAttributePageableMemoryAccess: *out = p.pageableMemoryAccess; return true;
    case hipDeviceAttributePciBusId: *out = p.pciBusID; return true;
    case hipDeviceAttributePciDeviceId: *out = p.pciDeviceID; return true;
    case hipDeviceAttributePciDomainId: *out = p.pciDomainID; return true;
    case hipDeviceAttributeMaxRegistersPerBlock: *out = p.regsPerBlock; return true;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *out = clamp(p.sharedMemPerBlock); return true;
    case hipDeviceAttributeTextureAlignment: *out = clamp(p.textureAlignment); return true;
    case hipDeviceAttributeTotalConstantMemory: *out = clamp(p.totalConstMem); return true;
    case hipDeviceAttributeTotalGlobalMem: *out = clamp(p.totalGlobalMem); return true;  // int: HIP clamps too
    case hipDeviceAttributeUnifiedAddressing: *out = p.unifiedAddressing; return true;
    case hipDeviceAttributeWarpSize: *out = p.warpSize; return true;
    default: return false;
    }
}

}  // namespace

extern "C" {

hipError_t hipDeviceGetAttribute(int *pi, hipDeviceAttribute_t attr, int deviceId) {
    HIPCPU_ENTER();
    if (pi == nullptr) return hipcpu::ret(hipErrorInvalidValue);
    if (hipcpu::device_count() == 0) return hipcpu::ret(hipErrorNoDevice);
    if (!hipcpu::valid_device(deviceId)) return hipcpu::ret(hipErrorInvalidDevice);
    if (implementation_fact(attr, pi)) return hipSuccess;
    hipDeviceProp_t props;
    hipcpu::fill_properties(props, deviceId);
    return from_properties(props, attr, pi) ? hipSuccess : hipcpu::ret(hipErrorInvalidValue);
}

}  // extern "C"
