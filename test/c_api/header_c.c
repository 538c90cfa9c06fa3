/* SPDX-License-Identifier: MIT */
/* Compile-only: the C header is valid C11 and its layouts are upstream's. */
#include <hipfile/hipfile.h>
#include <hipfile.h>

#include <stddef.h>

_Static_assert(hipFileInvalidValue == 5022, "cuFile numbering");
_Static_assert(hipFileBatchFull == 5037, "cuFile numbering");
_Static_assert(hipFileIOMaxError == 5039, "cuFile numbering");
_Static_assert(sizeof(hipFileError_t) == 2 * sizeof(int), "two enums");
_Static_assert(offsetof(hipFileIOParams_t, u) == 8, "mode then union");
_Static_assert(sizeof(hipFileIOParams_t) == 64, "upstream layout");
_Static_assert(sizeof(hipFileIOEvents_t) == 24, "upstream layout");
_Static_assert(HIPFILE_STREAM_FLAGS_MASK == 0xf, "stream flags");

int hipfile_header_c_check(void) {
  hipFileDescr_t d;
  d.type = hipFileHandleTypeOpaqueFD;
  d.handle.fd = 0;
  d.fs_ops = NULL;
  return (int)d.type;
}
