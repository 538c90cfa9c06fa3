#include <hipfile.h>
#include <hip/hip_runtime_api.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

int main(void)
{
    int fd = open("/path/to/file", O_RDONLY | O_DIRECT);
    if (fd == -1) {
        fprintf(stderr, "Could not open file (%s)\n", strerror(errno));
        return 1;
    }

    hipFileDescr_t descr;
    descr.type      = hipFileHandleTypeOpaqueFD;
    descr.handle.fd = fd;

    hipFileHandle_t handle;
    hipFileError_t err = hipFileHandleRegister(&handle, &descr);
    if (err.err != hipFileSuccess) {
        fprintf(stderr, "Could not register file (%s)\n",
                HIPFILE_ERRSTR(err.err));
        close(fd);
        return 1;
    }

    size_t buffer_size = 1024 * 1024;
    void *devbuf = NULL;
    hipError_t hip_err = hipMalloc(&devbuf, buffer_size);
    if (hip_err != hipSuccess) {
        fprintf(stderr, "Could not allocate device buffer (%d)\n", hip_err);
        hipFileHandleDeregister(handle);
        close(fd);
        return 1;
    }

    hipFileError_t buf_err = hipFileBufRegister(devbuf, buffer_size, 0);
    if (buf_err.err != hipFileSuccess) {
        fprintf(stderr, "Could not register buffer (%s)\n",
                HIPFILE_ERRSTR(buf_err.err));
        hipFree(devbuf);
        hipFileHandleDeregister(handle);
        close(fd);
        return 1;
    }

    /* Perform GPU I/O operations here (hipFileRead, hipFileWrite, etc.) */

    /* Teardown */
    hipFileBufDeregister(devbuf);
    hipFileHandleDeregister(handle);
    hipFree(devbuf);
    close(fd);

    return 0;
}
