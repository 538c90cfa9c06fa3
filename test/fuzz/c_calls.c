/* SPDX-License-Identifier: MIT */
/* The calls that pass enum parameters, made from C as C callers make them: in C any int converts
 * to the enum type, while C++ code holding an out-of-range value in an enum would itself be
 * undefined behaviour (and UBSan would report the harness, not the library). */
#include <hipfile/hipfile.h>

hipFileError_t fuzz_set_size_param(int p, size_t v) { return hipFileSetParameterSizeT((hipFileSizeTConfigParameter_t)p, v); }
hipFileError_t fuzz_get_size_param(int p, size_t *v) { return hipFileGetParameterSizeT((hipFileSizeTConfigParameter_t)p, v); }
hipFileError_t fuzz_set_bool_param(int p, bool v) { return hipFileSetParameterBool((hipFileBoolConfigParameter_t)p, v); }
hipFileError_t fuzz_get_bool_param(int p, bool *v) { return hipFileGetParameterBool((hipFileBoolConfigParameter_t)p, v); }
const char *fuzz_op_error_string(int e) { return hipFileGetOpErrorString((hipFileOpError_t)e); }
