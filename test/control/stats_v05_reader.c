/* SPDX-License-Identifier: MIT */
/* A C11 program written against hipFile 0.5's <hipfile.h> alone, as a profiler or a user would
 * write it: it checks the version it was built against and runs against, moves 64 KiB each way
 * and reads the counts back through hipFileGetStatsL1 and hipFileGetStatsL3. Exit 0 when every
 * number is the expected one, 77 (SKIP) without a device. */
#include <fcntl.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#if HIPFILE_VERSION_MAJOR == 0 && HIPFILE_VERSION_MINOR < 5
#error "hipfile.h predates the 0.5 statistics API"
#endif

#define EXPECT(cond)                                              \
    do {                                                          \
        if (!(cond)) {                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                             \
        }                                                         \
    } while (0)

static int run(const char *path) {
    const size_t n = 64 * 1024;
    unsigned major = 0, minor = 0;
    EXPECT(hipFileGetVersion(&major, &minor, NULL).err == hipFileSuccess);
    EXPECT(major > 0 || minor >= 5);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    EXPECT(fd >= 0);
    void *dev = NULL;
    EXPECT(hipMalloc(&dev, n) == hipSuccess);
    EXPECT(hipMemset(dev, 9, n) == hipSuccess);
    hipFileDescr_t d = {0};
    d.type = hipFileHandleTypeOpaqueFD;
    d.handle.fd = fd;
    hipFileHandle_t fh = NULL;
    EXPECT(hipFileHandleRegister(&fh, &d).err == hipFileSuccess);
    EXPECT(hipFileWrite(fh, dev, n, 0, 0) == (ssize_t)n);
    EXPECT(hipFileRead(fh, dev, n, 0, 0) == (ssize_t)n);
    EXPECT(hipFileRead(fh, dev, n, -1, 0) == -1); /* 0.4+: errno EINVAL, not counted */

    hipFileStatsLevel1_t l1 = {0};
    EXPECT(hipFileGetStatsL1(&l1).err == hipFileSuccess);
    printf("read_ops.ok %llu read_bytes %llu write_bytes %llu hdl_register_ops.ok %llu\n",
           (unsigned long long)l1.read_ops.ok, (unsigned long long)l1.read_bytes,
           (unsigned long long)l1.write_bytes, (unsigned long long)l1.hdl_register_ops.ok);
    EXPECT(l1.read_ops.ok == 1 && l1.read_ops.err == 0);
    EXPECT(l1.write_ops.ok == 1);
    EXPECT(l1.read_bytes == n && l1.write_bytes == n);
    EXPECT(l1.hdl_register_ops.ok == 1);

    hipFileStatsLevel3_t *l3 = calloc(1, sizeof *l3);
    EXPECT(l3 != NULL);
    EXPECT(hipFileGetStatsL3(l3).err == hipFileSuccess);
    EXPECT(l3->num_gpus >= 1 && l3->num_gpus <= HIPFILE_MAX_GPUS);
    EXPECT(l3->detailed.basic.read_bytes == n);
    EXPECT(l3->per_gpu_stats[0].read_bytes == n);
    EXPECT(l3->per_gpu_stats[0].writes_bytes == n);
    EXPECT(l3->per_gpu_stats[0].n_total_reads == 1);
    free(l3);

    hipFileHandleDeregister(fh);
    EXPECT(hipFileDriverClose().err == hipFileSuccess);
    EXPECT(hipFree(dev) == hipSuccess);
    close(fd);
    unlink(path);
    return 0;
}

int main(void) {
    int count = 0;
    if (hipGetDeviceCount(&count) != hipSuccess || count == 0) {
        puts("SKIP: the HIP runtime reports no device");
        return 77;
    }
    const char *dir = getenv("HIPFILE_TEST_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/hipfile-stats-v05-reader.%d", dir && *dir ? dir : "/var/tmp", (int)getpid());
    return run(path);
}
