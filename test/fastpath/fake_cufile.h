/* SPDX-License-Identifier: MIT */
/*
 * Control interface of the fake libcufile (fake_cufile.c), a test double that the library's real
 * loader (lib/fastpath/cufile.cpp) dlopens through HIPFILE_CUFILE_LIBRARY. A test reaches these
 * functions with dlopen(path, RTLD_NOW) + dlsym; holding its own handle also keeps the fake (and
 * its counters) resident when the library dlcloses it.
 *
 * Without any call, the fake reports GPU-direct storage unless the environment says
 * FAKE_CUFILE_GDS=0 (for programs that cannot call in, such as hipfile-check), and moves every
 * byte asked for.
 */
#ifndef HIPFILE_TEST_FAKE_CUFILE_H
#define HIPFILE_TEST_FAKE_CUFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How cuFileRead/cuFileWrite end. Each first moves min(fail_after, size) bytes. */
enum fake_cufile_failure {
    FAKE_CUFILE_NONE = 0,  /* move everything (up to end of file for reads) */
    FAKE_CUFILE_ERRNO = 1, /* then return -1 with errno = fail_value */
    FAKE_CUFILE_OP = 2,    /* then return -fail_value (a CUfileOpError number) */
    FAKE_CUFILE_SHORT = 3  /* then return the count moved, as a successful short transfer */
};

typedef struct fake_cufile_control {
    int gds;                /* nonzero: cuFileDriverGetProperties reports nvidia-fs 2.20 */
    unsigned status_flags;  /* nvfs.dstatusflags it reports */
    int driver_open_error;  /* CUfileOpError cuFileDriverOpen returns; 0 = success */
    int properties_error;   /* CUfileOpError cuFileDriverGetProperties returns; 0 = success */
    int refuse_register;    /* nonzero: cuFileHandleRegister fails (CU_FILE_IO_NOT_SUPPORTED) */
    int failure;            /* enum fake_cufile_failure */
    int fail_value;         /* the errno or CUfileOpError of the failure */
    size_t fail_after;      /* bytes moved before the failure */
} fake_cufile_control_t;

typedef struct fake_cufile_counters {
    unsigned long long driver_open, driver_close, get_properties;
    unsigned long long handle_register, handle_deregister;  /* successful registrations, releases */
    unsigned long long reads, writes;                       /* calls */
    unsigned long long read_bytes, write_bytes;             /* bytes moved, failed calls included */
} fake_cufile_counters_t;

/* Replace the control (takes effect at the next call of the fake). */
void fake_cufile_set(const fake_cufile_control_t *control);
/* Copy the counters. */
void fake_cufile_counters(fake_cufile_counters_t *out);
/* Default control, counters zero. */
void fake_cufile_reset(void);

typedef void (*fake_cufile_set_fn)(const fake_cufile_control_t *);
typedef void (*fake_cufile_counters_fn)(fake_cufile_counters_t *);
typedef void (*fake_cufile_reset_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* HIPFILE_TEST_FAKE_CUFILE_H */
