/* SPDX-License-Identifier: MIT */
/**
 * @file hipfile_stats.h
 * @brief In-process I/O statistics of libhipfile, richer than hipFile 0.5's hipFileGetStatsL1-L3
 *        (declared in <hipfile.h>, from the same counts): per path, operation and device, with
 *        histograms of sizes and latencies.
 *
 * Every synchronous, batch and async request is counted once, when it completes, under the path
 * that served it (staging engine into device memory, host memory, a fastpath) and its operation
 * (read or write). Levels (HIPFILE_STATS_LEVEL, hipFileParamProfileStats, hipFileSetStatsLevel):
 *   0  nothing is recorded;
 *   1  (default) per path and operation: operations, bytes, errors, total time;
 *   2  level 1 plus request-size and latency histograms;
 *   3  level 2 plus per-device counters (since 0.5 these are recorded from level 1, because
 *      hipFile 0.5's hipFileGetStatsL3 reports per-device figures at its default level; level 3
 *      is kept and records what level 2 does).
 * Recording costs a few relaxed atomic additions on a per-thread shard.
 *
 * Histogram bucket i counts values v with 2^i <= v < 2^(i+1) (bucket 0 also counts 0); the
 * last bucket counts everything larger. Sizes are in bytes, latencies in nanoseconds.
 *
 * Setting HIPFILE_STATS_FILE=path makes the library write a text report there (mode 0600) at the
 * last driver close, at process exit (if the driver was ever opened) and when hipFileStatsWrite
 * is called; `hipfile-stats` reads and prints it (doc/statistics.md).
 */
#ifndef HIPFILE_STATS_H
#define HIPFILE_STATS_H

#include "hipfile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HIPFILE_STATS_VERSION 2
#define HIPFILE_STATS_BUCKETS 48
#define HIPFILE_STATS_MAX_DEVICES 16

/** Where a request was served. */
typedef enum hipFileStatsPath {
    hipFileStatsPathEngine = 0,   /**< staging engine, device memory target */
    hipFileStatsPathHost = 1,     /**< host (pinned, pageable) or managed memory target */
    hipFileStatsPathCufile = 2,   /**< NVIDIA cuFile fastpath */
    hipFileStatsPathAmd = 3,      /**< AMD hipAmdFileRead/Write fastpath */
    hipFileStatsPathCount = 4
} hipFileStatsPath_t;

typedef enum hipFileStatsOp {
    hipFileStatsOpRead = 0,
    hipFileStatsOpWrite = 1,
    hipFileStatsOpCount = 2
} hipFileStatsOp_t;

/** Counters of one path (or device) and operation. */
typedef struct hipFileStatsCounters {
    uint64_t ops;      /**< requests completed, failed ones included */
    uint64_t bytes;    /**< bytes moved by successful requests */
    uint64_t errors;   /**< requests that failed */
    uint64_t time_ns;  /**< total time spent in the requests */
} hipFileStatsCounters_t;

/**
 * Since version 2: how the bytes of one path and operation reached or left the file, counted as
 * they move (the moved part of a failed request included): through the page cache (buffered
 * reads and writes, and reads of page-cache pages mapped for the device) or with O_DIRECT. An
 * O_DIRECT client's read of cached data is served from the page cache (doc/configuration.md,
 * HIPFILE_DIRECT_READS_FROM_CACHE), so the two split such a read exactly. The staging engine's
 * and the host path's I/O is counted; the fastpaths' (cufile, amd) stays 0.
 */
typedef struct hipFileStatsSource {
    uint64_t cache_bytes;   /**< through the page cache */
    uint64_t direct_bytes;  /**< with O_DIRECT */
} hipFileStatsSource_t;

typedef struct hipFileStatsL1 {
    uint32_t version;  /**< HIPFILE_STATS_VERSION */
    uint32_t level;    /**< the level in force when read */
    hipFileStatsCounters_t path[hipFileStatsPathCount][hipFileStatsOpCount];
} hipFileStatsL1_t;

typedef struct hipFileStatsL2 {
    hipFileStatsL1_t l1;
    uint64_t size_hist[hipFileStatsPathCount][hipFileStatsOpCount][HIPFILE_STATS_BUCKETS];
    uint64_t latency_hist[hipFileStatsPathCount][hipFileStatsOpCount][HIPFILE_STATS_BUCKETS];
} hipFileStatsL2_t;

typedef struct hipFileStatsL3 {
    hipFileStatsL2_t l2;
    /** Per HIP device index (devices beyond the last slot are counted in it). */
    hipFileStatsCounters_t device[HIPFILE_STATS_MAX_DEVICES][hipFileStatsOpCount];
    /** Version 2 and later: page cache or O_DIRECT, per path and operation (recorded from level 1). */
    hipFileStatsSource_t source[hipFileStatsPathCount][hipFileStatsOpCount];
} hipFileStatsL3_t;

/**
 * Copy the statistics into *stats, whose size the caller passes (sizeof *stats): the library
 * fills the first min(size, its own sizeof) bytes and zeroes the rest, so a program built with
 * a newer header that appended fields reads 0 there, and one built with an older header gets
 * no more bytes than it has (doc/abi.md). `version` says which layout filled
 * it. NULL, or a size below the version-1 struct (hipFileStatsL3_t without `source`), gives
 * hipFileInvalidValue. Never opens the
 * driver. (hipFileGetStatsL1-L3 in <hipfile.h> are hipFile 0.5's calls with cuFile's layouts.)
 */
HIPFILE_API hipFileError_t hipFileGetStatsExL1(hipFileStatsL1_t *stats, size_t size);
HIPFILE_API hipFileError_t hipFileGetStatsExL2(hipFileStatsL2_t *stats, size_t size);
HIPFILE_API hipFileError_t hipFileGetStatsExL3(hipFileStatsL3_t *stats, size_t size);
/** Zero every counter. */
HIPFILE_API hipFileError_t hipFileStatsReset(void);
/** The recording level, 0-3. NULL gives hipFileInvalidValue. */
HIPFILE_API hipFileError_t hipFileGetStatsLevel(int *level);
/** Change the recording level now (0-3, else hipFileInvalidValue). The next driver open sets it
 *  again from the configuration. */
HIPFILE_API hipFileError_t hipFileSetStatsLevel(int level);
/** Write the text report to `path`, or to HIPFILE_STATS_FILE when `path` is NULL (nothing
 *  configured: hipFileInvalidValue). The file is created with mode 0600 and never followed
 *  through a symbolic link. */
HIPFILE_API hipFileError_t hipFileStatsWrite(const char *path);

/**
 * @brief Where the library's setup and one-time work went: what a first load in a process pays
 * that a later one does not (doc/statistics.md, "Phases").
 *
 * Kept at every statistics level, zeroed by hipFileStatsReset. Times are per call and summed
 * over threads: the phases run on the engine's workers (pinned staging, mapping) overlap each
 * other and the reads, so they are not parts of one wall time.
 */
typedef enum hipFileStatsPhase {
  hipFileStatsPhaseDriverOpen = 0,          /**< driver open (explicit or implicit): configuration, fastpath, instance */
  hipFileStatsPhaseFastpathOpen = 1,        /**< of the driver open: loading the fastpath library and opening its driver */
  hipFileStatsPhaseEngineStart = 2,         /**< creating the staging engine, at the first I/O after an open */
  hipFileStatsPhaseThreadStart = 3,         /**< starting the engine's worker threads, at its first large request */
  hipFileStatsPhasePinnedStaging = 4,       /**< making one lane: pinned staging slots, stream and events */
  hipFileStatsPhasePathTrials = 5,          /**< reads the read-path tuner ran on a path other than its best known */
  hipFileStatsPhaseMapping = 6,             /**< mapping page-cache pages and pinning them (mapped reads) */
  hipFileStatsPhaseFileRegistration = 7,    /**< hipFileHandleRegister, without an implicit driver open */
  hipFileStatsPhaseBufferRegistration = 8,  /**< hipFileBufRegister, without an implicit driver open */
  hipFileStatsPhaseTeardown = 9,            /**< the last hipFileDriverClose */
  hipFileStatsPhaseCount = 10               /**< the number of phases of this version; may grow */
} hipFileStatsPhase_t;

typedef struct hipFileStatsPhaseTime {
  uint64_t count;    /**< calls */
  uint64_t time_ns;  /**< their total time */
  uint64_t first_ns; /**< the first call's time (since the process started or the last reset) */
} hipFileStatsPhaseTime_t;

/**
 * Copy the times of the first `count` phases, in hipFileStatsPhase_t order, into `phases`; entries
 * past the phases this library knows are zeroed. NULL or a count of 0 gives hipFileInvalidValue.
 * Never opens the driver; thread-safe.
 */
HIPFILE_API hipFileError_t hipFileGetStatsPhases(hipFileStatsPhaseTime_t *phases, size_t count);
/** The phase's name as the reports print it ("driver_open", ...); "unknown" outside the enum. */
HIPFILE_API const char *hipFileGetStatsPhaseName(int phase);

/** A buffer of this many bytes always holds the whole fastpath report, its NUL included. */
#define HIPFILE_FASTPATH_REPORT_MAX 4096

/**
 * @brief What the most recent driver open decided about GPU-direct fastpaths, and why.
 *
 * Each driver open (hipFileDriverOpen, or the implicit one of hipFileHandleRegister) decides
 * whether a fastpath (cuFile, AMD AIS) serves device I/O; this call reports that decision as one
 * NUL-terminated line:
 *
 *     fastpath=NAME library=PATH gds=yes|no reason=SENTENCE
 *
 * NAME is "cufile", "amd-ais" or "none". PATH is the shared library that was loaded (the file
 * the dynamic linker opened; it may have been unloaded again when it reported no GPU-direct
 * storage), or "none". gds says whether GPU-direct storage was reported. SENTENCE, which runs to
 * the end of the line, says why (doc/fastpaths.md). The report stays after the driver closes,
 * until the next open replaces it. This call never opens the driver and is thread-safe.
 *
 * @param buf  receives the text; the caller owns it.
 * @param len  size of buf in bytes; HIPFILE_FASTPATH_REPORT_MAX always suffices.
 * @return hipFileSuccess;
 *         hipFileInvalidValue when buf is NULL or len is 0 (nothing is written), or when the text
 *         does not fit: buf then holds its first len - 1 bytes and a NUL;
 *         hipFileDriverNotInitialized when the driver has never been opened in this process
 *         (buf holds the empty string).
 */
HIPFILE_API hipFileError_t hipFileDriverGetFastpathReport(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_STATS_H */
