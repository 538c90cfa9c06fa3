/* SPDX-License-Identifier: MIT */
/**
 * @file hipfile.h
 * @brief The hipFile C API: register files and GPU buffers, then move data between storage
 *        and GPU memory.
 *
 * Names, types, numeric values and struct layouts are those of upstream hipFile (itself a
 * rename of NVIDIA cuFile), so programs written for upstream compile unchanged. Where this
 * implementation goes further than upstream (batch and parameter APIs that execute, host
 * memory targets, interior pointers of registered buffers) doc/differences.md says so.
 *
 * Usable from C99 and later (clean under -std=c99 -pedantic) and C++. Every function is thread-safe unless its comment says otherwise.
 */
#ifndef HIPFILE_HIPFILE_H
#define HIPFILE_HIPFILE_H

#include <hip/hip_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

/* Strict ISO C (-std=c99/c11 without _POSIX_C_SOURCE or _GNU_SOURCE) leaves struct timespec
 * undeclared; declared here, hipFileBatchIOGetStatus's parameter names the file-scope type. */
struct timespec;

#if defined(__GNUC__)
#define HIPFILE_API __attribute__((visibility("default")))
#else
#define HIPFILE_API
#endif

#if defined(__cplusplus) && __cplusplus >= 201703L
#define __HIPFILE_NODISCARD [[nodiscard]]
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ > 201710L
#define __HIPFILE_NODISCARD [[nodiscard]]
#else
#define __HIPFILE_NODISCARD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The hipFile API version this library implements (doc/abi.md): 0.5, whose
 * statistics calls below consumers test for with HIPFILE_VERSION_* and hipFileGetVersion. */
#define HIPFILE_VERSION_MAJOR 0
#define HIPFILE_VERSION_MINOR 5
#define HIPFILE_VERSION_PATCH 0

/** File offsets: off_t on POSIX. */
typedef off_t hoff_t;

/* ---------------------------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------------------------- */

#define HIPFILE_BASE_ERR 5000

/** Operation status codes; the numbers are cuFile's. */
typedef enum hipFileOpError {
    hipFileSuccess = 0,
    hipFileDriverNotInitialized = HIPFILE_BASE_ERR + 1,
    hipFileDriverInvalidProps = HIPFILE_BASE_ERR + 2,
    hipFileDriverUnsupportedLimit = HIPFILE_BASE_ERR + 3,
    hipFileDriverVersionMismatch = HIPFILE_BASE_ERR + 4,
    hipFileDriverVersionReadError = HIPFILE_BASE_ERR + 5,
    hipFileDriverClosing = HIPFILE_BASE_ERR + 6,
    hipFilePlatformNotSupported = HIPFILE_BASE_ERR + 7,
    hipFileIONotSupported = HIPFILE_BASE_ERR + 8,
    hipFileDeviceNotSupported = HIPFILE_BASE_ERR + 9,
    hipFileDriverError = HIPFILE_BASE_ERR + 10,
    hipFileHipDriverError = HIPFILE_BASE_ERR + 11,
    hipFileHipPointerInvalid = HIPFILE_BASE_ERR + 12,
    hipFileHipMemoryTypeInvalid = HIPFILE_BASE_ERR + 13,
    hipFileHipPointerRangeError = HIPFILE_BASE_ERR + 14,
    hipFileHipContextMismatch = HIPFILE_BASE_ERR + 15,
    hipFileInvalidMappingSize = HIPFILE_BASE_ERR + 16,
    hipFileInvalidMappingRange = HIPFILE_BASE_ERR + 17,
    hipFileInvalidFileType = HIPFILE_BASE_ERR + 18,
    hipFileInvalidFileOpenFlag = HIPFILE_BASE_ERR + 19,
    hipFileDIONotSet = HIPFILE_BASE_ERR + 20,
    /* 5021 is unused */
    hipFileInvalidValue = HIPFILE_BASE_ERR + 22,
    hipFileMemoryAlreadyRegistered = HIPFILE_BASE_ERR + 23,
    hipFileMemoryNotRegistered = HIPFILE_BASE_ERR + 24,
    hipFilePermissionDenied = HIPFILE_BASE_ERR + 25,
    hipFileDriverAlreadyOpen = HIPFILE_BASE_ERR + 26,
    hipFileHandleNotRegistered = HIPFILE_BASE_ERR + 27,
    hipFileHandleAlreadyRegistered = HIPFILE_BASE_ERR + 28,
    hipFileDeviceNotFound = HIPFILE_BASE_ERR + 29,
    hipFileInternalError = HIPFILE_BASE_ERR + 30,
    hipFileGetNewFDFailed = HIPFILE_BASE_ERR + 31,
    /* 5032 is unused */
    hipFileDriverSetupError = HIPFILE_BASE_ERR + 33,
    hipFileIODisabled = HIPFILE_BASE_ERR + 34,
    hipFileBatchSubmitFailed = HIPFILE_BASE_ERR + 35,
    hipFileGPUMemoryPinningFailed = HIPFILE_BASE_ERR + 36,
    hipFileBatchFull = HIPFILE_BASE_ERR + 37,
    hipFileAsyncNotSupported = HIPFILE_BASE_ERR + 38,
    hipFileIOMaxError = HIPFILE_BASE_ERR + 39
} hipFileOpError_t;

/** Result of every non-I/O call. When err == hipFileHipDriverError, hip_drv_err holds the HIP
 *  runtime error; otherwise it is hipSuccess. */
typedef struct __HIPFILE_NODISCARD hipFileError {
    hipFileOpError_t err;
    hipError_t hip_drv_err;
} hipFileError_t;

/** A fixed English text for an op error; "Unknown hipFile error" for anything else.
 *  Needs no driver and never fails. */
HIPFILE_API const char *hipFileGetOpErrorString(hipFileOpError_t status);

/* IS_HIPFILE_ERR(x): true when |x| > HIPFILE_BASE_ERR, i.e. x is a hipFileOpError_t (an .err
 * field) or a negated one (a hipFileRead/Write return below -1). It tests the magnitude only:
 * hipFileSuccess, -1 (errno) and -hipError_t values are false, but so is nothing about a byte
 * count: a successful read of more than 5000 bytes is "true". Apply it to a return only after
 * checking that the return is negative. x is converted to int first.
 * HIPFILE_ERRSTR(x): the text of the op error |x| (hipFileGetOpErrorString), for either sign;
 * "Unknown hipFile error" for values that are not op errors. */
#define IS_HIPFILE_ERR(x) (abs((int)(x)) > HIPFILE_BASE_ERR)
#define HIPFILE_ERRSTR(x) hipFileGetOpErrorString((hipFileOpError_t)abs((int)(x)))
/* IS_HIP_DRV_ERR(e): true when the hipFileError_t e carries a HIP runtime error, which
 * HIP_DRV_ERR(e) then gives (hipSuccess otherwise). Both evaluate e more than once. */
#ifndef IS_HIP_DRV_ERR
#define IS_HIP_DRV_ERR(e) ((e).err == hipFileHipDriverError)
#endif
#ifndef HIP_DRV_ERR
#define HIP_DRV_ERR(e) ((e).hip_drv_err)
#endif

/* ---------------------------------------------------------------------------------------------
 * Driver
 * ------------------------------------------------------------------------------------------- */

/** Bit positions in hipFileDriverProps_t.nvfs.driver_status_flags. */
typedef enum hipFileDriverStatusFlags {
    hipFileLustreSupported = 0,
    hipFileWekaFSSupported = 1,
    hipFileNFSSupported = 2,
    hipFileGPFSSupported = 3,
    hipFileNVMeSupported = 4,
    hipFileNVMeoFSupported = 5,
    hipFileSCSISupported = 6,
    hipFileScaleFluxCSDSupported = 7,
    hipFileNVMeshSupported = 8,
    hipFileBeeGFSSupported = 9,
    /* 10 is reserved for YRCloudFile */
    hipFileNVMeP2PSupported = 11,
    hipFileScatefsSupported = 12
} hipFileDriverStatusFlags_t;

/** Bit positions in hipFileDriverProps_t.nvfs.driver_control_flags. */
typedef enum hipFileDriverControlFlags {
    hipFileUsePollMode = 0,
    hipFileAllowCompatMode = 1
} hipFileDriverControlFlags_t;

/** Bit positions in hipFileDriverProps_t.feature_flags. */
typedef enum hipFileFeatureFlags {
    hipFileDynRoutingSupported = 0,
    hipFileBatchIOSupported = 1,
    hipFileStreamsSupported = 2,
    hipFileParallelIOSupported = 3
} hipFileFeatureFlags_t;

/** Driver configuration and capabilities; sizes are in KiB. */
typedef struct hipFileDriverProps {
    struct {
        unsigned int major_version;
        unsigned int minor_version;
        uint64_t poll_thresh_size;
        uint64_t max_direct_io_size;
        unsigned int driver_status_flags;
        unsigned int driver_control_flags;
    } nvfs;
    unsigned int feature_flags;
    uint64_t max_device_cache_size;
    uint64_t per_buffer_cache_size;
    uint64_t max_device_pinned_mem_size;
    unsigned int max_batch_io_count;
    unsigned int max_batch_io_timeout_msecs;
} hipFileDriverProps_t;

/** Opens (or references again) the process-wide driver. Reference counted. */
HIPFILE_API hipFileError_t hipFileDriverOpen(void);
/** Drops one driver reference; the last one releases every registration, thread and
 *  staging buffer. hipFileDriverNotInitialized when no reference is held. */
HIPFILE_API hipFileError_t hipFileDriverClose(void);
/** The driver reference count (0 when closed). Never opens the driver. */
HIPFILE_API int64_t hipFileUseCount(void);
HIPFILE_API hipFileError_t hipFileDriverGetProperties(hipFileDriverProps_t *props);
HIPFILE_API hipFileError_t hipFileDriverSetPollMode(bool poll, size_t poll_threshold_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxDirectIOSize(size_t max_direct_io_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxCacheSize(size_t max_cache_size);
HIPFILE_API hipFileError_t hipFileDriverSetMaxPinnedMemSize(size_t max_pinned_size);

/* ---------------------------------------------------------------------------------------------
 * RDMA / user-space file system types (declared for compatibility; not supported)
 * ------------------------------------------------------------------------------------------- */

typedef struct hipFileRDMAInfo {
    int version;
    int desc_len;
    const char *desc_str;
} hipFileRDMAInfo_t;

#define HIPFILE_RDMA_REGISTER 1
#define HIPFILE_RDMA_RELAXED_ORDERING (1 << 1)

typedef struct hipFileFSOps {
    const char *(*fs_type)(void *handle);
    int (*getRDMADeviceList)(void *handle, struct sockaddr **hostaddrs);
    int (*getRDMADevicePriority)(void *handle, char *, size_t, hoff_t, struct sockaddr *hostaddr);
    ssize_t (*read)(void *handle, char *, size_t, hoff_t, hipFileRDMAInfo_t *);
    ssize_t (*write)(void *handle, const char *, size_t, hoff_t, hipFileRDMAInfo_t *);
} hipFileFSOps_t;

/* ---------------------------------------------------------------------------------------------
 * File handles
 * ------------------------------------------------------------------------------------------- */

typedef enum hipFileFileHandleType {
    hipFileHandleTypeOpaqueFD = 1,
    hipFileHandleTypeOpaqueWin32 = 2,
    hipFileHandleTypeUserspaceFS = 3
} hipFileFileHandleType_t;

typedef struct hipFileDescr {
    hipFileFileHandleType_t type;
    union {
        int fd;
        void *hFile;
    } handle;
    const hipFileFSOps_t *fs_ops;
} hipFileDescr_t;

/** Opaque registered file. */
typedef void *hipFileHandle_t;

/** Registers descr->handle.fd (type hipFileHandleTypeOpaqueFD) and opens the driver if it is
 *  closed. The caller keeps ownership of the fd and must deregister before closing it. */
HIPFILE_API hipFileError_t hipFileHandleRegister(hipFileHandle_t *fh, hipFileDescr_t *descr);
/** Deregisters a file; waits for I/O on it to finish. NULL and unknown handles are ignored. */
HIPFILE_API void hipFileHandleDeregister(hipFileHandle_t fh);

/* ---------------------------------------------------------------------------------------------
 * Buffers
 * ------------------------------------------------------------------------------------------- */

/** Registers [buffer_base, buffer_base + length) for I/O and opens the driver if it is closed.
 *  The memory stays the caller's; deregister before freeing it. */
HIPFILE_API hipFileError_t hipFileBufRegister(const void *buffer_base, size_t length, int flags);
/** Deregisters a buffer by the base it was registered with; waits for I/O on it to finish. */
HIPFILE_API hipFileError_t hipFileBufDeregister(const void *buffer_base);

/* ---------------------------------------------------------------------------------------------
 * Synchronous I/O
 * ------------------------------------------------------------------------------------------- */

/** Reads size bytes at file_offset into buffer_base + buffer_offset.
 *  @return bytes read (short at end of file), -1 with errno set for a system error, or the
 *          negated hipFileOpError_t (HIP runtime failures: -hipFileHipDriverError). */
HIPFILE_API ssize_t hipFileRead(hipFileHandle_t fh, void *buffer_base, size_t size,
                                hoff_t file_offset, hoff_t buffer_offset);
/** Writes size bytes from buffer_base + buffer_offset at file_offset; returns as hipFileRead. */
HIPFILE_API ssize_t hipFileWrite(hipFileHandle_t fh, const void *buffer_base, size_t size,
                                 hoff_t file_offset, hoff_t buffer_offset);

/* ---------------------------------------------------------------------------------------------
 * Batch I/O
 * ------------------------------------------------------------------------------------------- */

typedef enum hipFileOpcode {
    hipFileBatchRead = 0,
    hipFileBatchWrite = 1
} hipFileOpcode_t;

typedef enum hipFileStatus {
    hipFileWaiting = 1,
    hipFilePending = 2,
    hipFileInvalid = 4,
    hipFileCanceled = 8,
    hipFileComplete = 16,
    hipFileTimeout = 32,
    hipFileFailed = 64
} hipFileStatus_t;

typedef enum hipFileBatchMode {
    hipFileBatch = 1
} hipFileBatchMode_t;

typedef struct hipFileIOParams {
    hipFileBatchMode_t mode;
    union {
        struct {
            void *devPtr_base;
            int64_t file_offset;
            int64_t devPtr_offset;
            size_t size;
        } batch;
    } u;
    hipFileHandle_t fh;
    hipFileOpcode_t opcode;
    void *cookie;
} hipFileIOParams_t;

typedef struct hipFileIOEvents {
    void *cookie;
    hipFileStatus_t status;
    size_t ret; /* bytes, or a negated error stored in the unsigned field */
} hipFileIOEvents_t;

typedef void *hipFileBatchHandle_t;

HIPFILE_API hipFileError_t hipFileBatchIOSetUp(hipFileBatchHandle_t *batch_idp, unsigned nr);
HIPFILE_API hipFileError_t hipFileBatchIOSubmit(hipFileBatchHandle_t batch_idp, unsigned nr,
                                                hipFileIOParams_t *iocbp, unsigned int flags);
HIPFILE_API hipFileError_t hipFileBatchIOGetStatus(hipFileBatchHandle_t batch_idp, unsigned min_nr,
                                                   unsigned *nr, hipFileIOEvents_t *iocbp,
                                                   struct timespec *timeout);
HIPFILE_API hipFileError_t hipFileBatchIOCancel(hipFileBatchHandle_t batch_idp);
HIPFILE_API void hipFileBatchIODestroy(hipFileBatchHandle_t batch_idp);

/* ---------------------------------------------------------------------------------------------
 * Stream-ordered (async) I/O
 * ------------------------------------------------------------------------------------------- */

#define HIPFILE_STREAM_FIXED_BUF_OFFSET 1
#define HIPFILE_STREAM_FIXED_FILE_OFFSET 2
#define HIPFILE_STREAM_FIXED_FILE_SIZE 4
#define HIPFILE_STREAM_PAGE_ALIGNED_INPUTS 8
#define HIPFILE_STREAM_FLAGS_MASK 0xf

HIPFILE_API hipFileError_t hipFileReadAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                            hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                            ssize_t *bytes_read_p, hipStream_t stream);
HIPFILE_API hipFileError_t hipFileWriteAsync(hipFileHandle_t fh, void *buffer_base, size_t *size_p,
                                             hoff_t *file_offset_p, hoff_t *buffer_offset_p,
                                             ssize_t *bytes_written_p, hipStream_t stream);
HIPFILE_API hipFileError_t hipFileStreamRegister(hipStream_t stream, unsigned flags);
HIPFILE_API hipFileError_t hipFileStreamDeregister(hipStream_t stream);

/* ---------------------------------------------------------------------------------------------
 * Version
 * ------------------------------------------------------------------------------------------- */

/** Writes the library version; any pointer may be NULL. Needs no driver. */
HIPFILE_API hipFileError_t hipFileGetVersion(unsigned *major, unsigned *minor, unsigned *patch);

/* ---------------------------------------------------------------------------------------------
 * Statistics, hipFile 0.5 (cuFile's CUfileStatsLevel1/2/3 shape)
 *
 * Counted once per completed request, whatever path served it, at statistics level 1 and up
 * (HIPFILE_STATS_LEVEL, hipFileParamProfileStats, hipFileSetStatsLevel); the histograms of
 * level 2 need level 2. Which fields this library fills, and how each is derived, is listed in
 * doc/statistics.md; fields it has no source for (RDMA, P2P, utilization, the UUID) read 0.
 * The richer counters of <hipfile/hipfile_stats.h> are separate calls.
 * ------------------------------------------------------------------------------------------- */

/** Slots in hipFileStatsLevel3_t.per_gpu_stats; a device index beyond the last is counted there. */
#define HIPFILE_MAX_GPUS 16
/** Bytes of hipFilePerGpuStats_t.uuid. */
#define HIPFILE_GPU_UUID_LEN 16

/** Successful (ok) and failed (err) calls of one kind. */
typedef struct hipFileOpCounter {
    uint64_t ok;
    uint64_t err;
} hipFileOpCounter_t;

/** Process-wide counters; latencies in microseconds, bandwidths in bytes per second of I/O time. */
typedef struct hipFileStatsLevel1 {
    hipFileOpCounter_t read_ops;
    hipFileOpCounter_t write_ops;
    hipFileOpCounter_t hdl_register_ops;
    hipFileOpCounter_t hdl_deregister_ops;
    hipFileOpCounter_t buf_register_ops;
    hipFileOpCounter_t buf_deregister_ops;
    uint64_t read_bytes;
    uint64_t write_bytes;
    uint64_t read_bw_bytes_per_sec;
    uint64_t write_bw_bytes_per_sec;
    uint64_t read_lat_avg_us;
    uint64_t write_lat_avg_us;
    uint64_t read_ops_per_sec;
    uint64_t write_ops_per_sec;
    uint64_t read_lat_sum_us;
    uint64_t write_lat_sum_us;
    hipFileOpCounter_t batch_submit_ops;
    hipFileOpCounter_t batch_complete_ops;
    hipFileOpCounter_t batch_setup_ops;
    hipFileOpCounter_t batch_cancel_ops;
    hipFileOpCounter_t batch_destroy_ops;
    hipFileOpCounter_t batch_enqueued_ops;
    hipFileOpCounter_t batch_posix_enqueued_ops;
    hipFileOpCounter_t batch_processed_ops;
    hipFileOpCounter_t batch_posix_processed_ops;
    hipFileOpCounter_t batch_nvfs_submit_ops;
    hipFileOpCounter_t batch_p2p_submit_ops;
    hipFileOpCounter_t batch_aio_submit_ops;
    hipFileOpCounter_t batch_iouring_submit_ops;
    hipFileOpCounter_t batch_mixed_io_submit_ops;
    hipFileOpCounter_t batch_total_submit_ops;
    uint64_t batch_read_bytes;
    uint64_t batch_write_bytes;
    uint64_t batch_read_bw_bytes;
    uint64_t batch_write_bw_bytes;
    uint64_t batch_submit_lat_avg_us;
    uint64_t batch_completion_lat_avg_us;
    uint64_t batch_submit_ops_per_sec;
    uint64_t batch_complete_ops_per_sec;
    uint64_t batch_submit_lat_sum_us;
    uint64_t batch_completion_lat_sum_us;
    uint64_t last_batch_read_bytes;
    uint64_t last_batch_write_bytes;
} hipFileStatsLevel1_t;

/** Level 1 plus request sizes: bucket i counts requests of [2^i, 2^(i+1)) KiB (bucket 0 also
 *  those under 1 KiB, bucket 31 everything larger). */
typedef struct hipFileStatsLevel2 {
    hipFileStatsLevel1_t basic;
    uint64_t read_size_kb_hist[32];
    uint64_t write_size_kb_hist[32];
} hipFileStatsLevel2_t;

/** One device's counters; "nvfs" counts requests a GPU-direct fastpath served, "posix" those of
 *  the staging engine. */
typedef struct hipFilePerGpuStats {
    char uuid[HIPFILE_GPU_UUID_LEN];
    uint64_t read_bytes;
    uint64_t read_bw_bytes_per_sec;
    uint64_t read_utilization;
    uint64_t read_duration_us;
    uint64_t n_total_reads;
    uint64_t n_p2p_reads;
    uint64_t n_nvfs_reads;
    uint64_t n_posix_reads;
    uint64_t n_unaligned_reads;
    uint64_t n_dr_reads;
    uint64_t n_sparse_regions;
    uint64_t n_inline_regions;
    uint64_t n_reads_err;
    /* cuFile spells it writes_bytes; hipFile 0.5's consumers use both: one field, two names.
     * Anonymous unions are C11: __extension__ keeps -std=c99 -pedantic quiet, as glibc's headers
     * do (same layout, same names). */
#if defined(__GNUC__)
    __extension__
#endif
    union {
        uint64_t writes_bytes;
        uint64_t write_bytes;
    };
    uint64_t write_bw_bytes_per_sec;
    uint64_t write_utilization;
    uint64_t write_duration_us;
    uint64_t n_total_writes;
    uint64_t n_p2p_writes;
    uint64_t n_nvfs_writes;
    uint64_t n_posix_writes;
    uint64_t n_unaligned_writes;
    uint64_t n_dr_writes;
    uint64_t n_writes_err;
    uint64_t n_mmap;
    uint64_t n_mmap_ok;
    uint64_t n_mmap_err;
    uint64_t n_mmap_free;
    uint64_t reg_bytes;
} hipFilePerGpuStats_t;

/** Level 2 plus per-device counters; num_gpus is the number of HIP devices (at most
 *  HIPFILE_MAX_GPUS). */
typedef struct hipFileStatsLevel3 {
    hipFileStatsLevel2_t detailed;
    uint32_t num_gpus;
    hipFilePerGpuStats_t per_gpu_stats[HIPFILE_MAX_GPUS];
} hipFileStatsLevel3_t;

/** Copy the statistics into *stats. NULL gives hipFileInvalidValue. Never opens the driver and
 *  succeeds at every level (level 0: what was counted before it was set). Thread-safe. */
HIPFILE_API hipFileError_t hipFileGetStatsL1(hipFileStatsLevel1_t *stats);
HIPFILE_API hipFileError_t hipFileGetStatsL2(hipFileStatsLevel2_t *stats);
HIPFILE_API hipFileError_t hipFileGetStatsL3(hipFileStatsLevel3_t *stats);

/* ---------------------------------------------------------------------------------------------
 * Parameters (cuFile semantics: set while the driver is closed, applied on open, reset on the
 * last close)
 * ------------------------------------------------------------------------------------------- */

typedef enum hipFileSizeTConfigParameter {
    hipFileParamProfileStats = 0,
    hipFileParamExecutionMaxIOQueueDepth,
    hipFileParamExecutionMaxIOThreads,
    hipFileParamExecutionMinIOThresholdSizeKB,
    hipFileParamExecutionMaxRequestParallelism,
    hipFileParamPropertiesMaxDirectIOSizeKB,
    hipFileParamPropertiesMaxDeviceCacheSizeKB,
    hipFileParamPropertiesPerBufferCacheSizeKB,
    hipFileParamPropertiesMaxDevicePinnedMemSizeKB,
    hipFileParamPropertiesIOBatchsize,
    hipFileParamPollthresholdSizeKB,
    hipFileParamPropertiesBatchIOTimeoutMs
} hipFileSizeTConfigParameter_t;

typedef enum hipFileBoolConfigParameter {
    hipFileParamPropertiesUsePollMode = 0,
    hipFileParamPropertiesAllowCompatMode,
    hipFileParamForceCompatMode,
    hipFileParamFsMiscApiCheckAggressive,
    hipFileParamExecutionParallelIO,
    hipFileParamProfileNvtx,
    hipFileParamPropertiesAllowSystemMemory,
    hipFileParamUsePcip2pdma,
    hipFileParamPreferIOUring,
    hipFileParamForceOdirectMode,
    hipFileParamSkipTopologyDetection,
    hipFileParamStreamMemopsBypass
} hipFileBoolConfigParameter_t;

typedef enum hipFileStringConfigParameter {
    hipFileParamLoggingLevel = 0,
    hipFileParamEnvLogfilePath,
    hipFileParamLogDir
} hipFileStringConfigParameter_t;

HIPFILE_API hipFileError_t hipFileGetParameterSizeT(hipFileSizeTConfigParameter_t param, size_t *value);
HIPFILE_API hipFileError_t hipFileGetParameterBool(hipFileBoolConfigParameter_t param, bool *value);
HIPFILE_API hipFileError_t hipFileGetParameterString(hipFileStringConfigParameter_t param,
                                                     char *desc_str, int len);
HIPFILE_API hipFileError_t hipFileSetParameterSizeT(hipFileSizeTConfigParameter_t param, size_t value);
HIPFILE_API hipFileError_t hipFileSetParameterBool(hipFileBoolConfigParameter_t param, bool value);
HIPFILE_API hipFileError_t hipFileSetParameterString(hipFileStringConfigParameter_t param,
                                                     const char *desc_str);

#ifdef __cplusplus
}
#endif

#undef __HIPFILE_NODISCARD

#endif /* HIPFILE_HIPFILE_H */
