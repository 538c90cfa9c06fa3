/* SPDX-License-Identifier: MIT */
/* The seed guide's job: open a file (O_DIRECT where possible), register it and a GPU buffer,
 * read the file into GPU memory, and tear everything down in order.
 * Usage: register_and_read FILE */
#include <hipfile.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY | O_DIRECT);
    if (fd == -1 && errno == EINVAL) fd = open(argv[1], O_RDONLY); /* no O_DIRECT here */
    if (fd == -1) {
        fprintf(stderr, "Could not open file (%s)\n", strerror(errno));
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
        fprintf(stderr, "Empty or unreadable file\n");
        close(fd);
        return 1;
    }
    size_t size = (size_t)st.st_size;

    hipFileDescr_t descr;
    memset(&descr, 0, sizeof descr);
    descr.type = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;
    hipFileHandle_t handle;
    hipFileError_t err = hipFileHandleRegister(&handle, &descr);
    if (err.err != hipFileSuccess) {
        fprintf(stderr, "Could not register file (%s)\n", hipFileGetOpErrorString(err.err));
        close(fd);
        return 1;
    }

    void *gpu = NULL;
    if (hipMalloc(&gpu, size) != hipSuccess) {
        fprintf(stderr, "Could not allocate %zu bytes of GPU memory\n", size);
        hipFileHandleDeregister(handle);
        close(fd);
        return 1;
    }
    err = hipFileBufRegister(gpu, size, 0);
    if (err.err != hipFileSuccess) fprintf(stderr, "Buffer not registered (%s); reading anyway\n",
                                           hipFileGetOpErrorString(err.err));

    ssize_t n = hipFileRead(handle, gpu, size, 0, 0);
    int status = 0;
    if (n < 0) {
        fprintf(stderr, "Read failed (%s)\n", n == -1 ? strerror(errno) : HIPFILE_ERRSTR(n));
        status = 1;
    } else {
        printf("read %zd of %zu bytes into GPU memory\n", n, size);
    }

    if (err.err == hipFileSuccess) (void)hipFileBufDeregister(gpu);
    (void)hipFree(gpu);
    hipFileHandleDeregister(handle);
    close(fd);
    (void)hipFileDriverClose();
    return status;
}
