/* SPDX-License-Identifier: MIT */
/* Written for hipFile 0.5: writes and reads back 1 MiB through GPU memory, compares it, and
 * reads the counts with hipFileGetStatsL1. argv[1]: a scratch file. Exit 0 when all is right. */
#include <fcntl.h>
#include <hip/hip_runtime_api.h>
#include <hipfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "consumer_c: %s failed\n", #c); return 1; } } while (0)

int main(int argc, char **argv) {
    const size_t n = 1 << 20;
    CHECK(argc == 2);
    unsigned char *in = malloc(n), *out = malloc(n);
    CHECK(in && out);
    for (size_t i = 0; i < n; ++i) in[i] = (unsigned char)(i * 7 + 3);
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    void *dev = NULL;
    CHECK(hipMalloc(&dev, n) == hipSuccess);
    CHECK(hipMemcpy(dev, in, n, hipMemcpyHostToDevice) == hipSuccess);
    hipFileDescr_t d;
    memset(&d, 0, sizeof d);
    d.type = hipFileHandleTypeOpaqueFD;
    d.handle.fd = fd;
    hipFileHandle_t fh = NULL;
    CHECK(hipFileHandleRegister(&fh, &d).err == hipFileSuccess);
    CHECK(hipFileWrite(fh, dev, n, 0, 0) == (ssize_t)n);
    CHECK(hipMemset(dev, 0, n) == hipSuccess);
    CHECK(hipFileRead(fh, dev, n, 0, 0) == (ssize_t)n);
    CHECK(hipMemcpy(out, dev, n, hipMemcpyDeviceToHost) == hipSuccess);
    CHECK(memcmp(in, out, n) == 0);
    hipFileStatsLevel1_t s;
    CHECK(hipFileGetStatsL1(&s).err == hipFileSuccess);
    CHECK(s.read_bytes == n && s.write_bytes == n && s.read_ops.ok == 1 && s.write_ops.ok == 1);
    hipFileHandleDeregister(fh);
    CHECK(hipFileDriverClose().err == hipFileSuccess);
    CHECK(hipFree(dev) == hipSuccess);
    close(fd);
    unlink(argv[1]);
    free(in);
    free(out);
    printf("consumer_c: 1 MiB round trip and statistics OK\n");
    return 0;
}
