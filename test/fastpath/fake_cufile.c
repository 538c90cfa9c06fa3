/* SPDX-License-Identifier: MIT */
/*
 * A fake libcufile for the fastpath suite: the entry points lib/fastpath/cufile.cpp resolves,
 * with cuFile's C ABI as that file declares it, plus the control functions of fake_cufile.h.
 *
 * Data really moves: a read is a pread on the registered descriptor into a host bounce buffer,
 * then hipMemcpy to the caller's device memory (and the reverse for writes). hip-cpu's device
 * memory cannot be touched by the host, as on a GPU, so the copy goes through the HIP runtime the
 * test program uses (hip-cpu is a shared library: one runtime in the process). This is why the
 * fake is built and used on platform=cpu only.
 */
#include <errno.h>
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "fake_cufile.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* --- cuFile's C ABI (cufile.h), as lib/fastpath/cufile.cpp declares it ---------------------- */
typedef struct CUfileError {
    int err;
    int cu_err;
} CUfileError_t;

typedef struct CUfileDescr {
    int type; /* CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1 */
    union {
        int fd;
        void *handle;
    } handle;
    const void *fs_ops;
} CUfileDescr_t;

/* The leading fields of CUfileDrvProps_t; the rest of the caller's buffer is left as it was. */
typedef struct CUfileDrvPropsHead {
    struct {
        unsigned major_version;
        unsigned minor_version;
        size_t poll_thresh_size;
        size_t max_direct_io_size;
        unsigned dstatusflags;
        unsigned dcontrolflags;
    } nvfs;
    unsigned fflags;
} CUfileDrvPropsHead_t;

enum { kIoNotSupported = 5008, kInvalidValue = 5022 };

/* --- state ---------------------------------------------------------------------------------- */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static fake_cufile_control_t g_control; /* guarded by g_mu */
static int g_control_set;               /* guarded by g_mu: 0 = defaults not yet made */
static fake_cufile_counters_t g_counters; /* relaxed atomic additions */

static fake_cufile_control_t defaults(void) {
    fake_cufile_control_t c;
    const char *gds = getenv("FAKE_CUFILE_GDS");
    memset(&c, 0, sizeof c);
    c.gds = !(gds != NULL && strcmp(gds, "0") == 0);
    return c;
}

static fake_cufile_control_t control(void) {
    fake_cufile_control_t c;
    pthread_mutex_lock(&g_mu);
    if (!g_control_set) {
        g_control = defaults();
        g_control_set = 1;
    }
    c = g_control;
    pthread_mutex_unlock(&g_mu);
    return c;
}

static void count(unsigned long long *counter, unsigned long long n) {
    __atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static CUfileError_t status(int err) {
    CUfileError_t e = {err, 0};
    return e;
}

/* --- control interface ---------------------------------------------------------------------- */
FAKE_EXPORT void fake_cufile_set(const fake_cufile_control_t *c) {
    pthread_mutex_lock(&g_mu);
    g_control = *c;
    g_control_set = 1;
    pthread_mutex_unlock(&g_mu);
}

FAKE_EXPORT void fake_cufile_counters(fake_cufile_counters_t *out) {
    unsigned long long *dst = (unsigned long long *)out;
    unsigned long long *src = (unsigned long long *)&g_counters;
    for (size_t i = 0; i < sizeof g_counters / sizeof *src; ++i) dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

FAKE_EXPORT void fake_cufile_reset(void) {
    fake_cufile_control_t c = defaults();
    unsigned long long *p = (unsigned long long *)&g_counters;
    fake_cufile_set(&c);
    for (size_t i = 0; i < sizeof g_counters / sizeof *p; ++i) __atomic_store_n(&p[i], 0, __ATOMIC_RELAXED);
}

/* --- the cuFile entry points ---------------------------------------------------------------- */
FAKE_EXPORT CUfileError_t cuFileDriverOpen(void) {
    count(&g_counters.driver_open, 1);
    return status(control().driver_open_error);
}

FAKE_EXPORT CUfileError_t cuFileDriverClose_v2(void) {
    count(&g_counters.driver_close, 1);
    return status(0);
}

FAKE_EXPORT CUfileError_t cuFileDriverGetProperties(void *props) {
    fake_cufile_control_t c = control();
    CUfileDrvPropsHead_t head;
    count(&g_counters.get_properties, 1);
    if (props == NULL) return status(kInvalidValue);
    if (c.properties_error != 0) return status(c.properties_error);
    memset(&head, 0, sizeof head);
    head.nvfs.major_version = c.gds ? 2 : 0;
    head.nvfs.minor_version = c.gds ? 20 : 0;
    head.nvfs.dstatusflags = c.status_flags;
    head.nvfs.max_direct_io_size = 16u << 20;
    memcpy(props, &head, sizeof head);
    return status(0);
}

struct fake_handle {
    int fd;
};

FAKE_EXPORT CUfileError_t cuFileHandleRegister(void **out, CUfileDescr_t *descr) {
    struct fake_handle *h;
    if (out == NULL || descr == NULL || descr->type != 1) return status(kInvalidValue);
    if (control().refuse_register) return status(kIoNotSupported);
    h = malloc(sizeof *h);
    if (h == NULL) return status(kInvalidValue);
    h->fd = descr->handle.fd;
    *out = h;
    count(&g_counters.handle_register, 1);
    return status(0);
}

FAKE_EXPORT void cuFileHandleDeregister(void *handle) {
    if (handle == NULL) return;
    count(&g_counters.handle_deregister, 1);
    free(handle);
}

/* Moves up to `want` bytes between the file and device memory through an aligned bounce buffer
 * (the registered descriptor is the library's O_DIRECT one). Returns bytes moved or -1/errno. */
static ssize_t transfer(int fd, void *dev, size_t want, off_t offset, int reading) {
    void *host = NULL;
    ssize_t done;
    if (want == 0) return 0;
    if (posix_memalign(&host, 4096, want) != 0) {
        errno = ENOMEM;
        return -1;
    }
    if (reading) {
        done = pread(fd, host, want, offset);
        if (done > 0 && hipMemcpy(dev, host, (size_t)done, hipMemcpyHostToDevice) != hipSuccess) {
            errno = EFAULT;
            done = -1;
        }
    } else {
        done = hipMemcpy(host, dev, want, hipMemcpyDeviceToHost) == hipSuccess ? pwrite(fd, host, want, offset) : -1;
        if (done < 0 && errno == 0) errno = EFAULT;
    }
    free(host);
    return done;
}

static ssize_t io(void *handle, void *base, size_t size, off_t file_offset, off_t buf_offset, int reading) {
    fake_cufile_control_t c = control();
    const struct fake_handle *h = handle;
    size_t want = size;
    ssize_t moved;
    count(reading ? &g_counters.reads : &g_counters.writes, 1);
    if (h == NULL || base == NULL) return -kInvalidValue;
    if (c.failure != FAKE_CUFILE_NONE && c.fail_after < want) want = c.fail_after;
    errno = 0;
    moved = transfer(h->fd, (char *)base + buf_offset, want, file_offset, reading);
    if (moved < 0) return -1;
    count(reading ? &g_counters.read_bytes : &g_counters.write_bytes, (unsigned long long)moved);
    switch (c.failure) {
        case FAKE_CUFILE_ERRNO: errno = c.fail_value; return -1;
        case FAKE_CUFILE_OP: return -(ssize_t)c.fail_value;
        default: return moved;
    }
}

FAKE_EXPORT ssize_t cuFileRead(void *handle, void *base, size_t size, off_t file_offset, off_t buf_offset) {
    return io(handle, base, size, file_offset, buf_offset, 1);
}

FAKE_EXPORT ssize_t cuFileWrite(void *handle, const void *base, size_t size, off_t file_offset, off_t buf_offset) {
    return io(handle, (void *)base, size, file_offset, buf_offset, 0);
}
